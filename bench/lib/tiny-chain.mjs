// A long certificate list that is cheap to make and to send: a leaf and `count - 1` small
// self-signed P-256 CAs sharing one key, each certificate padded by its name to about `bytes`
// bytes, built with node:crypto alone (no openssl run per certificate). No client CA of a bench
// server issues any of them, so every server refuses the list.
import { generateKeyPairSync, sign, X509Certificate } from 'node:crypto';

function derLength(length) {
  if (length < 0x80) return Buffer.from([length]);
  const bytes = [];
  for (let rest = length; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}
const der = (tag, ...content) => {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), derLength(body.length), body]);
};
const sequence = (...content) => der(0x30, ...content);
const utcTime = (date) => der(0x17, Buffer.from(date.toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z', 'latin1'));
const commonName = (name) => sequence(der(0x31, sequence(Buffer.from('0603550403', 'hex'), der(0x0c, Buffer.from(name, 'utf8')))));
const ECDSA_SHA256 = sequence(Buffer.from('06082a8648ce3d040302', 'hex'));
const CA = der(0xa3, sequence(sequence(Buffer.from('0603551d13', 'hex'), Buffer.from('0101ff', 'hex'), der(0x04, sequence(Buffer.from('0101ff', 'hex'))))));

/** `{ cert, key, bytes }`: the PEM list (leaf first), the leaf's PKCS#8 PEM key, the DER bytes in all. */
export function tinyChain(count, bytes = 400) {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const now = Date.now();
  const validity = sequence(utcTime(new Date(now - 86_400_000)), utcTime(new Date(now + 2 * 86_400_000)));
  const pems = [];
  let total = 0;
  for (let i = 0; i < count; i++) {
    // ~270 bytes without the names; the rest is the subject and issuer, half each
    const name = `tiny-${i}-`.padEnd(Math.max(8, Math.floor((bytes - 270) / 2)), 'x');
    const tbs = sequence(
      der(0xa0, der(0x02, Buffer.from([2]))),
      der(0x02, Buffer.from([0x10 + (i >> 8), i & 0xff])),
      ECDSA_SHA256,
      commonName(name),
      validity,
      commonName(name),
      spki,
      ...(i === 0 ? [] : [CA]),
    );
    const certificate = sequence(tbs, ECDSA_SHA256, der(0x03, Buffer.from([0]), sign('sha256', tbs, privateKey)));
    total += certificate.length;
    pems.push(new X509Certificate(certificate).toString());
  }
  return { cert: pems.join(''), key: privateKey.export({ type: 'pkcs8', format: 'pem' }), bytes: total };
}
