/**
 * SetScript (13): we-node SetScriptTransactionDiff. The script is stored; from then on the
 * pipeline verifies the account's transactions by it (chain/scripts/verifier.ts).
 */
import type { Expr } from '../../ride/expr.js';
import { readScript } from '../../ride/script.js';
import type { SetScriptTransaction } from '../../protocol/transactions/scripts.js';
import { ROLES } from '../../protocol/transactions/permissions.js';
import { activeRoles } from '../permissions.js';
import { payFee, senderOf, type Applier } from './context.js';
import { FEATURE } from '../../protocol/features.js';
import { featuresByVersion, paidFee, TX_PACKAGE, west, type TransactionRules } from './rules.js';
import { genericError } from '../../errors/catalogue.js';

const SUPPORTED_SCRIPT_VERSIONS = new Set([1, 2]);
/** The compiler context's variables of a V1 account script (SmartContractV1Utils.varNames). */
const V1_VAR_NAMES = ['unit', 'height', 'tx'];

/**
 * WE's DenyDuplicateVarNames for V1 scripts before Smart Account Trading: a `let` may not
 * reuse a declared name (predefined or earlier let, in evaluation order) nor start with `@`;
 * names starting with `$` are exempt.
 */
export function duplicateVarNameError(expr: Expr, initial: readonly string[]): string | undefined {
  const declared = new Set(initial);
  const todo: Expr[] = [expr];
  for (let e = todo.pop(); e !== undefined; e = todo.pop()) {
    switch (e.t) {
      case 'BLOCK':
        if (e.name.startsWith('@')) return "VarNames: Can't declare var starting with @";
        if (!e.name.startsWith('$')) {
          if (declared.has(e.name)) return `VarNames: duplicate variable names are temporarily denied: '${e.name}'`;
          declared.add(e.name);
        }
        todo.push(e.body, e.value);
        break;
      case 'IF':
        todo.push(e.ifFalse, e.ifTrue, e.cond);
        break;
      case 'GETTER':
        todo.push(e.expr);
        break;
      case 'CALL':
        for (let i = e.args.length - 1; i >= 0; i--) todo.push(e.args[i]!);
        break;
      default:
        break;
    }
  }
  return undefined;
}

export const applySetScript: Applier<SetScriptTransaction> = (state, tx, ctx) => {
  const d = tx.data;
  if (d.script !== null) {
    const version = d.script[0]!;
    if (!SUPPORTED_SCRIPT_VERSIONS.has(version)) throw genericError(`Bad script version '${version}'`);
  }
  const sender = senderOf(tx).bytes;
  const roles = activeRoles(state.permissionOps(sender), d.timestamp).filter((r) => r !== ROLES.contract_developer);
  if (roles.length > 0) throw genericError('Script cannot be assigned to an account with a role other than contract_developer!');
  if (d.script !== null && !ctx.isFeatureActive(FEATURE.SMART_ACCOUNT_TRADING)) {
    const script = readScript(d.script, tx.protocol);
    if (script.version === 1) {
      const error = duplicateVarNameError(script.expr, V1_VAR_NAMES);
      if (error !== undefined) throw genericError(error);
    }
  }
  state.putScript(sender, d.script);
  payFee(state, sender, tx);
  return undefined;
};

export const SET_SCRIPT: TransactionRules<SetScriptTransaction> = {
  apply: applySetScript,
  scalaClass: { pkg: `${TX_PACKAGE}.smart`, name: 'SetScriptTransaction', versioned: true },
  features: featuresByVersion({ 1: [] }),
  // Removing a script or setting a V1 script needs Smart Accounts; a later script version, Smart Account Trading.
  fieldFeatures: (tx) => {
    const script = tx.data.script;
    return [script === null || script[0] === 1 ? FEATURE.SMART_ACCOUNTS : FEATURE.SMART_ACCOUNT_TRADING];
  },
  fee: paidFee('set-script', west(0.5)),
};
