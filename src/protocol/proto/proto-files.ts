/**
 * .proto files kept in the source tree, parsed with protobufjs. The build compiles TypeScript
 * only, so a caller names the source folder of its files as seen from its compiled module
 * (dist/src/<layer>/… at run time), as the explorer's static files are read from
 * src/explorer/static. The Google well-known types (wrappers, empty) are known to every file.
 */
import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';

const WELL_KNOWN = ['google/protobuf/wrappers.proto', 'google/protobuf/empty.proto'];

/** One root holding the well-known types and the files `fileNames` of `sourceDir`, every type resolved. */
export function protoRoot(sourceDir: URL, fileNames: readonly string[]): protobuf.Root {
  const root = new protobuf.Root();
  for (const name of WELL_KNOWN) root.addJSON(protobuf.common.get(name)?.nested ?? {});
  for (const fileName of fileNames) protobuf.parse(readFileSync(new URL(fileName, sourceDir), 'utf8'), root, { keepCase: false });
  root.resolveAll();
  return root;
}

/** The message types of `fileName` in `sourceDir` (package `wavesenterprise`), looked up by name. */
export function protoTypesIn(sourceDir: URL, fileName: string): (name: string) => protobuf.Type {
  const root = protoRoot(sourceDir, [fileName]);
  return (name) => root.lookupType(`wavesenterprise.${name}`);
}
