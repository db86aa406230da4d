import java.io.*;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.security.*;
import java.security.spec.*;
import javax.crypto.*;
import javax.crypto.spec.*;

/**
 * Oracle for test/crypto/encryption.test.ts (not part of the build): WE's `waves` encryption
 * computed with the JDK's own providers (XDH X25519, MD5, AES/GCM/NoPadding with a 16-byte
 * IV), as WE's AesEncryption, WavesAlgorithms and StreamCipher use them. Reads one request
 * per line, all values hex:
 *
 *   x25519 <private> <public>                         → shared secret
 *   seal <keyMaterial> <iv> <plaintext>               → IV ‖ AES-GCM(MD5(keyMaterial)) ‖ tag
 *   open <keyMaterial> <sealed>                       → plaintext, or "error"
 *   stream <cek> <chunkSize> <iv,iv,…> <plaintext>    → the chunk stream, chunks joined by ':'
 *
 * The stream is built with a fixed-size buffer exactly as StreamCipher.AbstractEncryptor
 * does: a new IV is taken each time a chunk starts (in the given order).
 * Usage: javac EncryptionOracle.java && printf 'seal 00 000102030405060708090a0b0c0d0e0f 48\n' | java EncryptionOracle
 */
public class EncryptionOracle {
  static byte[] hex(String s) {
    if (s.equals("-")) return new byte[0];
    byte[] out = new byte[s.length() / 2];
    for (int i = 0; i < out.length; i++) out[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
    return out;
  }

  static String hex(byte[] b) {
    StringBuilder sb = new StringBuilder();
    for (byte x : b) sb.append(String.format("%02x", x & 0xff));
    return sb.length() == 0 ? "-" : sb.toString();
  }

  static byte[] md5(byte[] in) throws Exception {
    return MessageDigest.getInstance("MD5").digest(in);
  }

  static byte[] gcm(int mode, byte[] key, byte[] iv, byte[] in) throws Exception {
    Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
    c.init(mode, new SecretKeySpec(key, "AES"), new GCMParameterSpec(128, iv));
    return c.doFinal(in);
  }

  static byte[] concat(byte[] a, byte[] b) {
    byte[] out = new byte[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  static byte[] x25519(byte[] priv, byte[] pub) throws Exception {
    KeyFactory kf = KeyFactory.getInstance("XDH");
    PrivateKey sk = kf.generatePrivate(new XECPrivateKeySpec(NamedParameterSpec.X25519, priv));
    byte[] le = pub.clone();
    le[31] &= 0x7f;
    byte[] be = new byte[32];
    for (int i = 0; i < 32; i++) be[i] = le[31 - i];
    PublicKey pk = kf.generatePublic(new XECPublicKeySpec(NamedParameterSpec.X25519, new BigInteger(1, be)));
    KeyAgreement ka = KeyAgreement.getInstance("XDH");
    ka.init(sk);
    ka.doPhase(pk, true);
    return ka.generateSecret();
  }

  /** StreamCipher.AbstractEncryptor with AesStream's cipher, IVs taken from a list. */
  static class Encryptor {
    final byte[] key;
    final ByteBuffer buffer;
    final String[] ivs;
    int nextIv = 0;
    byte[] iv;
    int chunkIndex = 0;
    final StringBuilder out = new StringBuilder();

    Encryptor(byte[] cek, int chunkSize, String[] ivs) throws Exception {
      this.key = md5(cek);
      this.buffer = ByteBuffer.allocate(chunkSize - 16);
      this.ivs = ivs;
      initNewChunk((byte) 0);
    }

    void initNewChunk(byte first) {
      iv = hex(ivs[nextIv++]);
      buffer.position(0);
      buffer.put(iv);
      buffer.put(first);
      buffer.putInt(chunkIndex);
      chunkIndex++;
    }

    void emit(byte[] plain) throws Exception {
      if (out.length() > 0) out.append(':');
      out.append(hex(concat(iv, gcm(Cipher.ENCRYPT_MODE, key, iv, plain))));
    }

    void apply(byte[] data) throws Exception {
      int pos = 0;
      while (pos != data.length) {
        int n = Math.min(data.length - pos, buffer.remaining());
        buffer.put(data, pos, n);
        pos += n;
        if (!buffer.hasRemaining()) {
          byte[] all = buffer.array();
          byte[] plain = new byte[all.length - 16];
          System.arraycopy(all, 16, plain, 0, plain.length);
          emit(plain);
          initNewChunk((byte) 0);
        }
      }
    }

    String doFinal() throws Exception {
      boolean fits = buffer.remaining() >= 4;
      int count = fits ? chunkIndex : chunkIndex + 1;
      byte[] countBytes = ByteBuffer.allocate(4).putInt(count).array();
      if (fits) {
        buffer.put(16, (byte) 1);
        apply(countBytes);
      } else {
        apply(countBytes);
        buffer.put(16, (byte) 1);
      }
      if (buffer.position() > 21) {
        byte[] plain = new byte[buffer.position() - 16];
        System.arraycopy(buffer.array(), 16, plain, 0, plain.length);
        emit(plain);
      }
      return out.toString();
    }
  }

  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    StringBuilder out = new StringBuilder();
    String line;
    while ((line = in.readLine()) != null) {
      String[] p = line.trim().split(" ");
      switch (p[0]) {
        case "x25519":
          out.append(hex(x25519(hex(p[1]), hex(p[2]))));
          break;
        case "seal": {
          byte[] iv = hex(p[2]);
          out.append(hex(concat(iv, gcm(Cipher.ENCRYPT_MODE, md5(hex(p[1])), iv, hex(p[3])))));
          break;
        }
        case "open": {
          byte[] sealed = hex(p[2]);
          byte[] iv = new byte[16];
          System.arraycopy(sealed, 0, iv, 0, 16);
          byte[] body = new byte[sealed.length - 16];
          System.arraycopy(sealed, 16, body, 0, body.length);
          try {
            out.append(hex(gcm(Cipher.DECRYPT_MODE, md5(hex(p[1])), iv, body)));
          } catch (AEADBadTagException e) {
            out.append("error");
          }
          break;
        }
        case "stream": {
          Encryptor e = new Encryptor(hex(p[1]), Integer.parseInt(p[2]), p[3].split(","));
          e.apply(hex(p[4]));
          out.append(e.doFinal());
          break;
        }
        default:
          throw new IllegalArgumentException("unknown request " + p[0]);
      }
      out.append('\n');
    }
    System.out.print(out);
  }
}
