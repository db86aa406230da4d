/**
 * The .proto files of this folder, parsed with protobufjs. They are read from the source tree
 * (src/contracts/grpc/, seen from dist/src/contracts/grpc/ at run time), as the explorer's
 * static files are read from src/explorer/static: the build compiles TypeScript only.
 */
import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';

const SOURCE_DIR = new URL('../../../../src/contracts/grpc/', import.meta.url);

/** The message types of `fileName` (package `wavesenterprise`), looked up by name. */
export function protoTypes(fileName: string): (name: string) => protobuf.Type {
  const root = protobuf.parse(readFileSync(new URL(fileName, SOURCE_DIR), 'utf8'), { keepCase: false }).root;
  return (name) => root.lookupType(`wavesenterprise.${name}`);
}
