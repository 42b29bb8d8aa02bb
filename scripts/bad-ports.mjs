// The Fetch standard's blocked ports (https://fetch.spec.whatwg.org/#port-blocking): browsers and
// Node's fetch refuse to connect to them ("bad port"), so a remote served on one can never be
// loaded. preview-serve.mjs and remote-release.mjs refuse them up front with this message.

export const BAD_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137,
  139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
  3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/** Why `port` cannot serve a remote, or undefined when it can. */
export function portRefusal(port, what = 'port') {
  if (!Number.isInteger(port) || port < 0 || port > 65535) return `${what} ${port} is not a TCP port (0–65535)`;
  if (BAD_PORTS.has(port)) {
    return `${what} ${port} is on the Fetch standard's blocked ports list (https://fetch.spec.whatwg.org/#port-blocking): browsers and Node's fetch refuse it ("bad port"), so the shell could never load a remote from it. Pick another port.`;
  }
  return undefined;
}

/** The port of an http(s) URL (its scheme's default when none is written). */
export function urlPort(url) {
  const u = new URL(url);
  return u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
}
