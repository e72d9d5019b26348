/**
 * Whether this Node offers SO_REUSEPORT through `listen({ reusePort: true })`: Node 22.12, 23.1 and
 * later, on Linux and the BSDs. Node 20 has no such option (it ignores it). Feature-detected from
 * the version and platform, since a probe bind would cost a socket and, where the option is
 * ignored, look the same as success on a free port.
 */
export function supportsReusePort(version: string = process.versions.node, platform: NodeJS.Platform = process.platform): boolean {
  if (platform === 'win32' || platform === 'darwin') return false;
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > 23 || (major === 23 && minor >= 1) || (major === 22 && minor >= 12);
}
