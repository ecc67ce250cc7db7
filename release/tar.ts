/**
 * A ustar archive of regular files, written byte for byte the same every time: fixed owner (0:0, no
 * names), the mode and mtime given, entries in the order given. What `tar -xf` reads on Linux and macOS.
 */
const BLOCK = 512;

export interface TarEntry {
  name: string;
  mode: number;
  data: Uint8Array;
}

/** `value` in octal, zero-padded to fill `width` bytes with its NUL terminator. */
function octal(value: number, width: number): string {
  const digits = value.toString(8);
  if (digits.length > width - 1) throw new RangeError(`${value} does not fit a ${width}-byte tar field`);
  return `${digits.padStart(width - 1, "0")}\0`;
}

function header(entry: TarEntry, mtime: number): Uint8Array {
  const name = new TextEncoder().encode(entry.name);
  if (name.length === 0 || name.length > 100 || entry.name.includes("\0")) throw new RangeError(`tar entry name ${JSON.stringify(entry.name)} must be 1–100 bytes`);
  const block = new Uint8Array(BLOCK);
  const put = (offset: number, text: string) => block.set(new TextEncoder().encode(text), offset);
  block.set(name, 0);
  put(100, octal(entry.mode, 8));
  put(108, octal(0, 8)); // uid
  put(116, octal(0, 8)); // gid
  put(124, octal(entry.data.length, 12));
  put(136, octal(mtime, 12));
  put(148, "        "); // the checksum field counts as spaces while the checksum is summed
  put(156, "0"); // regular file
  put(257, "ustar\0");
  put(263, "00");
  const sum = block.reduce((total, byte) => total + byte, 0);
  put(148, `${sum.toString(8).padStart(6, "0")}\0 `);
  return block;
}

/** The archive: each entry's header and data padded to 512 bytes, then two empty blocks. */
export function tarArchive(entries: TarEntry[], mtime: number): Uint8Array<ArrayBuffer> {
  const padded = (length: number) => Math.ceil(length / BLOCK) * BLOCK;
  const archive = new Uint8Array(entries.reduce((total, entry) => total + BLOCK + padded(entry.data.length), 2 * BLOCK));
  let offset = 0;
  for (const entry of entries) {
    archive.set(header(entry, mtime), offset);
    archive.set(entry.data, offset + BLOCK);
    offset += BLOCK + padded(entry.data.length);
  }
  return archive; // the padding and the two closing blocks are the array's zeros
}
