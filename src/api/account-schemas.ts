/**
 * TypeBox schemas of the account-side route groups (addresses, alias, leasing, assets):
 * requests and answers as WE writes them. Schemas with an `$id` become named components
 * of the OpenAPI document when a route uses them; int64 values are `integer/int64`.
 */
import { Type } from '@sinclair/typebox';
import { Int32, Int64 } from './schemas.js';

const Base58 = (description: string) => Type.String({ description, pattern: '^[1-9A-HJ-NP-Za-km-z]*$' });
const AddressString = (description = 'Address, Base58') => Type.String({ description });

// ---------------------------------------------------------------------------
// Requests

export const AddressesRequest = Type.Object({ addresses: Type.Array(Type.String(), { description: 'Addresses, at most 1000' }) }, { $id: 'AddressesRequest' });

export const ValidateManyRequest = Type.Object(
  { addressesOrAliases: Type.Array(Type.String(), { description: 'Addresses, `alias:<chain>:<name>` strings or bare alias names' }) },
  { $id: 'ValidateManyRequest' },
);

export const MessageRequest = Type.Object(
  {
    message: Type.String({ description: 'Text to sign (its UTF-8 bytes are signed)' }),
    password: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'Keystore password of the address' })),
  },
  { $id: 'MessageRequest' },
);

export const SignedMessageRequest = Type.Object(
  {
    message: Type.String({ description: '`/verify`: the signed bytes in Base58; `/verifyText`: the signed text' }),
    signature: Base58('Signature'),
    publickey: Type.Optional(Base58('Public key of the signer (`publicKey` is read when this is absent)')),
    publicKey: Type.Optional(Base58('Public key of the signer')),
  },
  { $id: 'SignedMessageRequest', description: 'Either `publickey` or `publicKey` is required' },
);

// ---------------------------------------------------------------------------
// Addresses

export const AddressList = Type.Array(AddressString(), { $id: 'AddressList', description: 'Addresses of the node keystore' });

export const AddressAnswer = Type.Object({ address: AddressString() }, { $id: 'AddressAnswer' });

export const AddressPublicKeyInfo = Type.Object({ address: AddressString(), publicKey: Base58('Public key') }, { $id: 'AddressPublicKeyInfo' });

export const Balance = Type.Object(
  { address: AddressString(), confirmations: Int32({ description: 'Blocks the balance has been held for (0: the current balance)' }), balance: Int64() },
  { $id: 'Balance' },
);

export const BalanceDetails = Type.Object(
  {
    address: AddressString(),
    regular: Int64({ description: 'WEST balance' }),
    generating: Int64({ description: 'Smallest effective balance over the last 1000 blocks' }),
    available: Int64({ description: 'regular − leased out' }),
    effective: Int64({ description: 'regular + leased in − leased out' }),
  },
  { $id: 'BalanceDetails' },
);

export const BalanceDetailsError = Type.Object(
  { address: Type.String({ description: 'The address as given' }), error: Type.Integer({ description: '102' }), message: Type.String() },
  { $id: 'BalanceDetailsError' },
);

export const GeneratingBalance = Type.Object(
  {
    address: Type.String({ description: 'The address as given' }),
    balance: Int64({ description: 'Smallest effective balance over the 1000 blocks up to the height' }),
  },
  { $id: 'GeneratingBalance' },
);

export const Validity = Type.Object(
  {
    addressOrAlias: Type.String(),
    valid: Type.Boolean(),
    reason: Type.Optional(
      Type.String({ description: "WE's internal error, e.g. `InvalidAddress(...)`, `GenericError(...)`, `AliasDoesNotExist(alias:T:name)`" }),
    ),
  },
  { $id: 'Validity' },
);

export const ValidityMany = Type.Object({ validations: Type.Array(Validity) }, { $id: 'ValidityMany' });

/**
 * What a script adds to the minimal fee of a transaction: nothing. WE 1.14's FeeCalculator
 * has no smart-account or smart-asset surcharge (its only additions are per mass-transfer
 * recipient pair and per data KiB), so the specification's `extraFee` is 0 for any script.
 */
export const SCRIPT_EXTRA_FEE = 0n;

export const ExtraFee = Int64({ description: 'What the script adds to minimal fees: always 0 in WE 1.14 (no smart-account or smart-asset surcharge)' });

export const ScriptInfo = Type.Object(
  {
    address: AddressString(),
    script: Type.Optional(Type.String({ description: 'The account script, `base64:`…' })),
    scriptText: Type.Optional(Type.String({ description: 'The script expression as WE prints it' })),
    complexity: Int64({ description: '0 without a script' }),
    extraFee: ExtraFee,
  },
  { $id: 'AddressScriptInfo' },
);

export const DataEntry = Type.Object(
  {
    key: Type.String(),
    type: Type.Union([Type.Literal('integer'), Type.Literal('boolean'), Type.Literal('binary'), Type.Literal('string')]),
    value: Type.Union([Int64(), Type.Boolean(), Type.String({ description: 'binary: `base64:`…' })]),
  },
  { $id: 'DataEntry' },
);

export const DataEntries = Type.Array(DataEntry, { description: 'Data entries sorted by key' });

export const Signed = Type.Object(
  {
    message: Type.String({ description: '`/sign`: the UTF-8 bytes of the message in Base58; `/signText`: the message as sent' }),
    publicKey: Base58('Public key of the address'),
    signature: Base58('Signature of the message bytes'),
  },
  { $id: 'SignedMessage' },
);

export const VerificationResult = Type.Object({ valid: Type.Boolean() }, { $id: 'VerificationResult' });

// ---------------------------------------------------------------------------
// Aliases

export const AliasList = Type.Array(Type.String({ description: '`alias:<chain>:<name>`' }), { $id: 'AliasList' });

// ---------------------------------------------------------------------------
// Assets

export const AssetHolder = Type.Object(
  {
    type: Type.Union([Type.Literal('Account'), Type.Literal('Contract')]),
    address: Type.Optional(AddressString('Account holders')),
    contractId: Type.Optional(Base58('Contract holders')),
  },
  { $id: 'AssetHolder' },
);

const nullableInt64 = (description: string) => Type.Union([Int64(), Type.Null()], { description });

const MinSponsoredAssetFee = nullableInt64(
  "With sponsorship: the least fee payable in the asset — WE converts sponsored fees 1:1, so a transfer's minimal fee in asset units; null otherwise",
);

export const AssetBalance = Type.Object(
  { address: AddressString(), assetId: Type.String({ description: 'The asset id as given' }), balance: Int64() },
  { $id: 'AssetBalance' },
);

export const AccountAssetBalances = Type.Object(
  {
    address: AddressString(),
    balances: Type.Array(
      Type.Object({
        assetId: Base58('Asset id'),
        balance: Int64(),
        reissuable: Type.Boolean(),
        sponsorshipIsEnabled: Type.Boolean(),
        sponsorBalance: nullableInt64("With sponsorship: the issuer's WEST balance minus what it leased out"),
        minSponsoredAssetFee: MinSponsoredAssetFee,
        quantity: Int64({ description: 'Total quantity in circulation' }),
        issueTransaction: Type.String({ description: 'The Issue transaction JSON, serialized into a string' }),
      }),
    ),
  },
  { $id: 'AccountAssetBalances' },
);

export const AccountAssetBalancesV2 = Type.Object(
  {
    address: AddressString(),
    balances: Type.Array(
      Type.Object({
        name: Type.String(),
        assetId: Base58('Asset id'),
        balance: Int64(),
        reissuable: Type.Boolean(),
        sponsorshipIsEnabled: Type.Boolean(),
        sponsorBalance: nullableInt64("With sponsorship: the issuer's WEST balance minus what it leased out"),
        quantity: Int64(),
        decimals: Type.Integer(),
        description: Type.String(),
        timestamp: Int64({ description: 'Issue time' }),
        issueHeight: Int32(),
        issuer: AssetHolder,
      }),
    ),
  },
  { $id: 'AccountAssetBalancesV2' },
);

export const ManyAccountsAssetBalances = Type.Record(
  Type.String({ description: 'Address' }),
  Type.Array(Type.Object({ assetId: Base58('Asset id'), balance: Int64() })),
  { $id: 'ManyAccountsAssetBalances', description: 'Positive asset balances of each address' },
);

export const AssetDetails = Type.Object(
  {
    assetId: Base58('Asset id'),
    issueHeight: Int32(),
    issueTimestamp: Int64(),
    issuer: AssetHolder,
    name: Type.String(),
    description: Type.String(),
    decimals: Type.Integer(),
    reissuable: Type.Boolean(),
    quantity: Int64(),
    scripted: Type.Boolean(),
    sponsorshipIsEnabled: Type.Boolean(),
    script: Type.Union([Type.String({ description: '`base64:`…' }), Type.Null()], { description: 'The asset script; null without one' }),
    scriptText: Type.Union([Type.String(), Type.Null()], { description: 'Its expression as WE prints it; null without a script' }),
    complexity: nullableInt64('Its complexity; null without a script'),
    minSponsoredAssetFee: MinSponsoredAssetFee,
    scriptDetails: Type.Optional(
      Type.Object(
        { scriptComplexity: Int64(), script: Type.String({ description: '`base64:`…' }), scriptText: Type.String() },
        { description: 'With `full=true`, for a scripted asset' },
      ),
    ),
  },
  { $id: 'AssetDetails' },
);

export const AssetDistribution = Type.Record(Type.String({ description: 'Address' }), Int64(), {
  $id: 'AssetDistribution',
  description: 'Positive balances of the asset by holder address',
});

export const AssetDistributionPage = Type.Object(
  {
    hasNext: Type.Boolean({ description: 'More holders follow: ask again with `after` = `lastItem`' }),
    lastItem: Type.Union([AddressString(), Type.Null()], { description: 'The last address of this page' }),
    items: AssetDistribution,
  },
  { $id: 'AssetDistributionPage' },
);
