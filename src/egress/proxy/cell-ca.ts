import { generateKeyPair, generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto";
import { isIP } from "node:net";
import { promisify } from "node:util";
import forge from "node-forge";

/** A TLS identity the proxy presents for one bound host: the leaf's key and its certificate, both PEM. */
export interface LeafCertificate {
  keyPem: string;
  certPem: string;
}

/**
 * One cell's egress CA. The cell trusts `certPem` (and only for bound hosts does the proxy present a leaf it
 * signs); the CA's private key stays inside this object, in the warden, and dies with it.
 */
export interface CellCa {
  readonly certPem: string;
  /** A leaf for `host` (SAN = the host), signed by this CA; the same leaf is returned for the same host. */
  leafFor(host: string): LeafCertificate;
}

export interface CellCaOptions {
  /** How long the CA and its leaves are valid; a cell lives hours to days, so days keep a stolen bundle short-lived. */
  validDays?: number;
  now?: Date;
}

const DEFAULT_VALID_DAYS = 7;
// Clocks inside a cell may lag the host's a little; a leaf "not yet valid" would fail every request.
const CLOCK_SKEW_MS = 60 * 60 * 1000;

type KeyPair = { privateKey: KeyObject; publicKey: KeyObject };
const CA_KEY = { modulusLength: 2048 } as const;

/** A CA made here and now: its RSA key takes 0.1–2 s of this thread (tests, tools). */
export function createCellCa(options: CellCaOptions = {}): CellCa {
  return caWithKey(generateKeyPairSync("rsa", CA_KEY), options);
}

/**
 * The same, its RSA key made on libuv's thread pool: a serving warden's event loop is not held while a cell's CA
 * is made.
 */
export async function makeCellCa(options: CellCaOptions = {}): Promise<CellCa> {
  const pair = (await promisify(generateKeyPair)("rsa", CA_KEY)) as KeyPair;
  return caWithKey(pair, options);
}

function caWithKey(caKey: KeyPair, options: CellCaOptions): CellCa {
  const now = options.now ?? new Date();
  const notBefore = new Date(now.getTime() - CLOCK_SKEW_MS);
  const notAfter = new Date(now.getTime() + (options.validDays ?? DEFAULT_VALID_DAYS) * 86_400_000);
  const caPublic = forge.pki.publicKeyFromPem(
    caKey.publicKey.export({ type: "spki", format: "pem" }).toString(),
  );
  const caName = [
    { name: "commonName", value: "IronClaw cell egress CA" },
    { name: "organizationName", value: "IronClaw" },
  ];
  const caCert = forge.pki.createCertificate();
  caCert.publicKey = caPublic;
  caCert.serialNumber = serialNumber();
  caCert.validity.notBefore = notBefore;
  caCert.validity.notAfter = notAfter;
  caCert.setSubject(caName);
  caCert.setIssuer(caName);
  caCert.setExtensions([
    { name: "basicConstraints", cA: true, pathLenConstraint: 0, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
    { name: "subjectKeyIdentifier" },
  ]);
  signCertificate(caCert, caKey.privateKey);
  const caKeyId = caCert.generateSubjectKeyIdentifier().getBytes();

  // One leaf key for every host of this CA, and a P-256 one: an RSA key costs 0.1–2 s to generate, on the path
  // of a cell's first request to a bound host.
  let leafKey: KeyPair | undefined;
  const leaves = new Map<string, LeafCertificate>();
  return {
    certPem: forge.pki.certificateToPem(caCert),
    leafFor(host) {
      const name = host.toLowerCase();
      const cached = leaves.get(name);
      if (cached) return cached;
      leafKey ??= generateKeyPairSync("ec", { namedCurve: "prime256v1" });
      const cert = forge.pki.createCertificate();
      cert.publicKey = caPublic; // a stand-in: forge writes RSA keys only; the P-256 key is spliced in below
      cert.serialNumber = serialNumber();
      cert.validity.notBefore = notBefore;
      cert.validity.notAfter = notAfter;
      cert.setSubject([{ name: "commonName", value: name }]);
      cert.setIssuer(caCert.subject.attributes);
      cert.setExtensions([
        { name: "basicConstraints", cA: false, critical: true },
        { name: "keyUsage", digitalSignature: true, critical: true },
        { name: "extKeyUsage", serverAuth: true },
        { name: "subjectAltName", altNames: [isIP(name) ? { type: 7, ip: name } : { type: 2, value: name }] },
        { name: "authorityKeyIdentifier", keyIdentifier: caKeyId },
      ]);
      signCertificate(cert, caKey.privateKey, leafKey.publicKey);
      const leaf = {
        keyPem: leafKey.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
        certPem: forge.pki.certificateToPem(cert),
      };
      leaves.set(name, leaf);
      return leaf;
    },
  };
}

/** forge builds the to-be-signed part with this; its type declarations leave it out. */
interface ForgeTbs {
  getTBSCertificate(cert: forge.pki.Certificate): forge.asn1.Asn1;
}

/**
 * Signs with node:crypto (native) rather than forge's JavaScript RSA, which takes a third of a second a
 * certificate; `subjectKey`, when given, replaces the subjectPublicKeyInfo forge wrote (a non-RSA key).
 */
function signCertificate(cert: forge.pki.Certificate, issuerKey: KeyObject, subjectKey?: KeyObject): void {
  const oid = forge.pki.oids.sha256WithRSAEncryption as string;
  cert.signatureOid = oid;
  cert.siginfo.algorithmOid = oid;
  const tbs = (forge.pki as unknown as ForgeTbs).getTBSCertificate(cert);
  if (subjectKey) {
    const spki = subjectKey.export({ type: "spki", format: "der" });
    // TBSCertificate: version, serial, signature, issuer, validity, subject, subjectPublicKeyInfo, extensions.
    (tbs.value as forge.asn1.Asn1[])[6] = forge.asn1.fromDer(
      forge.util.createBuffer(spki.toString("binary")),
    );
  }
  const der = Buffer.from(forge.asn1.toDer(tbs).getBytes(), "binary");
  (cert as forge.pki.Certificate & { tbsCertificate: forge.asn1.Asn1 }).tbsCertificate = tbs;
  cert.signature = sign("sha256", der, issuerKey).toString("binary");
}

/** A positive 128-bit serial (the top bit cleared keeps the DER integer positive). */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return bytes.toString("hex");
}
