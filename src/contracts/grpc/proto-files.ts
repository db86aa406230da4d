/**
 * The .proto files of this folder, read from the source tree (src/contracts/grpc/, seen from
 * dist/src/contracts/grpc/ at run time) by the protocol layer's loader.
 */
import type protobuf from 'protobufjs';
import { protoTypesIn } from '../../protocol/proto/proto-files.js';

const SOURCE_DIR = new URL('../../../../src/contracts/grpc/', import.meta.url);

/** The message types of `fileName` (package `wavesenterprise`), looked up by name. */
export function protoTypes(fileName: string): (name: string) => protobuf.Type {
  return protoTypesIn(SOURCE_DIR, fileName);
}
