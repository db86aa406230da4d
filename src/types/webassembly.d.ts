// Node's WebAssembly global, as far as src/contracts/wasm uses it. The project compiles
// without the DOM library (which is where TypeScript declares WebAssembly).
declare namespace WebAssembly {
  type ExportedFunction = (...args: never[]) => unknown;
  type ImportValue = ExportedFunction | Global | Memory | Table | number | bigint;
  type Imports = Record<string, Record<string, ImportValue>>;
  type Exports = Record<string, ExportedFunction | Global | Memory | Table>;

  class Module {
    constructor(bytes: BufferSource);
  }

  class Instance {
    constructor(module: Module, imports?: Imports);
    readonly exports: Exports;
  }

  class Memory {
    constructor(descriptor: { initial: number; maximum?: number });
    readonly buffer: ArrayBuffer;
    grow(delta: number): number;
  }

  class Global {
    constructor(descriptor: { value: 'i32' | 'i64'; mutable?: boolean }, value?: number | bigint);
    value: number | bigint;
  }

  class Table {
    readonly length: number;
  }

  class RuntimeError extends Error {}
  class CompileError extends Error {}
  class LinkError extends Error {}

  function validate(bytes: BufferSource): boolean;
}

type BufferSource = ArrayBufferView | ArrayBuffer;
