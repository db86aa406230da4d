import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.io.*;

/**
 * Oracle for test/consensus/score.test.ts (not part of the build): reads "s ts" lines
 * (overall-skipped-rounds, block timestamp) and prints "score term" per line, evaluating
 * reference §4.5 step by step with java.math.BigDecimal:
 *   ceil( 2^64 / (99 + s) [DECIMAL128] + BigDecimal(Double.toString(term)) [DECIMAL128] ).
 * Usage: javac PoaScoreOracle.java && printf '3 1700000012345\n' | java PoaScoreOracle
 */
public class PoaScoreOracle {
  public static void main(String[] args) throws IOException {
    MathContext mc = MathContext.DECIMAL128;
    BigDecimal twoPow64 = new BigDecimal("18446744073709551616", mc);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    StringBuilder out = new StringBuilder();
    String line;
    while ((line = in.readLine()) != null) {
      String[] p = line.trim().split(" ");
      long s = Long.parseLong(p[0]);
      long ts = Long.parseLong(p[1]);
      BigDecimal q = twoPow64.divide(new BigDecimal(99 + s, mc), mc);
      double term = ((ts / 1e3) % 1.0e4) * (ts / 1e10);
      BigDecimal t = new BigDecimal(Double.toString(term), mc);
      BigDecimal sum = q.add(t, mc);
      out.append(sum.setScale(0, RoundingMode.CEILING).toBigInteger()).append(' ').append(Double.toString(term)).append('\n');
    }
    System.out.print(out);
  }
}
