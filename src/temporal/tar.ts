// Reads one file out of a gzipped tar archive held in memory: all a release archive needs, without a `tar` on the machine.
import { gunzipSync } from 'node:zlib';

const BLOCK = 512;
const REGULAR_FILE = new Set([0x30 /* '0' */, 0 /* pre-POSIX */]);

function text(header: Buffer, offset: number, length: number): string {
  const field = header.subarray(offset, offset + length);
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? length : end).toString('utf8');
}

/** The contents of the regular file `name` at the archive's top (`name` or `./name`), or null when it holds none. */
export function readFileFromTarGz(archive: Buffer, name: string): Buffer | null {
  const tar = gunzipSync(archive);
  for (let offset = 0; offset + BLOCK <= tar.length;) {
    const header = tar.subarray(offset, offset + BLOCK);
    // Two zero blocks end the archive.
    if (header.every((byte) => byte === 0)) return null;
    // Only POSIX ustar keeps a path prefix there; the GNU format keeps other fields in the same bytes.
    const prefix = text(header, 257, 6) === 'ustar' ? text(header, 345, 155) : '';
    const entry = (prefix ? `${prefix}/` : '') + text(header, 0, 100);
    const size = parseInt(text(header, 124, 12).trim() || '0', 8);
    const start = offset + BLOCK;
    if (!Number.isFinite(size) || start + size > tar.length) throw new Error(`the archive's entry ${entry} is cut short`);
    if (REGULAR_FILE.has(header[156]) && entry.replace(/^\.\//, '') === name) return Buffer.from(tar.subarray(start, start + size));
    offset = start + Math.ceil(size / BLOCK) * BLOCK;
  }
  return null;
}
