/**
 * Vendor text (error messages, stream failures) goes on to clients, logs, Redis and pages. A
 * vendor or a reseller in front of it may echo what it was sent: the channel's key, a signed
 * link, a URL with credentials. Those are cut here, once, before the text goes anywhere.
 */
const PATTERNS: Array<[RegExp, string]> = [
  // userinfo in a URL: https://user:secret@host
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@:]+:[^\s/@]+@/gi, '$1[redacted]@'],
  // signed-URL and key query parameters (S3/TOS signatures, credentials, Google's ?key=)
  [
    /([?&](?:x-(?:amz|tos|goog)-(?:signature|credential|security-token)|signature|sig|key|api[_-]?key|access[_-]?token|token)=)[^&\s"'<>]+/gi,
    '$1[redacted]',
  ],
  // bearer tokens and key-shaped words
  [/\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi, '$1[redacted]'],
  [/\bAIza[0-9A-Za-z_-]{30,}/g, '[redacted]'],
  [/\bsk-[A-Za-z0-9_-]{16,}/g, '[redacted]'],
  // a long unbroken secret-looking run (hex or base64url) that is not a request id of digits and hex
  [/\b(?=[A-Za-z0-9_-]*[A-Z])(?=[A-Za-z0-9_-]*[a-z])(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{40,}\b/g, '[redacted]'],
];

/** The longest vendor text kept: enough for any real message, bounded against a vendor that sends a page. */
export const MAX_VENDOR_TEXT = 500;

export function sanitizeVendorText(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  // control characters would break log lines and headers
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is matched
  out = out.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, ' ');
  return out.length > MAX_VENDOR_TEXT ? `${out.slice(0, MAX_VENDOR_TEXT)}…` : out;
}
