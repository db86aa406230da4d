/**
 * The decompiler: the text WE gives for a script (`scriptText` in `/addresses/scriptInfo`, asset details):
 * WE's ScriptV1 keeps `expr.toString`, the Scala case-class rendering of the expression
 * tree (lang Terms), e.g.
 *
 *     FUNCTION_CALL(Native(0),List(GETTER(REF(tx),fee), CONST_LONG(100)))
 *
 * Case classes print as `NAME(field,field)` (comma, no space), Scala lists as
 * `List(a, b)` (comma and space), booleans as `TRUE` / `FALSE`, strings bare, and byte
 * vectors as scodec's `ByteVector(<n> bytes, 0x<hex>)` — `ByteVector(empty)` when empty,
 * `ByteVector(<n> bytes, #<hashCode>)` from 512 bytes on, the hash being scodec's
 * MurmurHash3 over the bytes.
 */
import { headerToString, type Expr } from './expr.js';
import { byteVectorText } from './scala.js';

export { byteVectorText, byteVectorHashCode } from './scala.js';

/** Scala's `expr.toString` of a script expression. */
export function scriptText(expr: Expr): string {
  const out: string[] = [];
  // Iterative: expressions can nest deeper than the JS stack allows for recursion.
  const stack: Array<Expr | string> = [expr];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item === 'string') {
      out.push(item);
      continue;
    }
    switch (item.t) {
      case 'LONG':
        out.push(`CONST_LONG(${item.value})`);
        break;
      case 'BYTES':
        out.push(`CONST_BYTEVECTOR(${byteVectorText(item.value)})`);
        break;
      case 'STRING':
        out.push(`CONST_STRING(${item.value})`);
        break;
      case 'BOOLEAN':
        out.push(item.value ? 'TRUE' : 'FALSE');
        break;
      case 'REF':
        out.push(`REF(${item.key})`);
        break;
      case 'IF':
        stack.push(')', item.ifFalse, ',', item.ifTrue, ',', item.cond, 'IF(');
        break;
      case 'BLOCK':
        stack.push(')', item.body, '),', item.value, `BLOCK(LET(${item.name},`);
        break;
      case 'GETTER':
        stack.push(`,${item.field})`, item.expr, 'GETTER(');
        break;
      case 'CALL': {
        stack.push('))');
        for (let i = item.args.length - 1; i >= 0; i--) {
          stack.push(item.args[i]!);
          if (i > 0) stack.push(', ');
        }
        stack.push(`FUNCTION_CALL(${headerToString(item.fn)},List(`);
        break;
      }
    }
  }
  return out.join('');
}
