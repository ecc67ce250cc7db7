/**
 * Reads one regular file out of a ustar archive (the release archives `release/tar.ts` writes):
 * walks the headers, checks each header's checksum, and answers the named file's bytes, or null
 * when the archive holds no such regular file. Malformed archives throw.
 */
const BLOCK = 512;

const field = (block: Uint8Array, offset: number, length: number) => {
  const bytes = block.subarray(offset, offset + length);
  const end = bytes.indexOf(0);
  return new TextDecoder().decode(end === -1 ? bytes : bytes.subarray(0, end));
};

const octal = (block: Uint8Array, offset: number, length: number) => {
  const text = field(block, offset, length).trim();
  if (!/^[0-7]+$/.test(text)) throw new Error("malformed tar header");
  return parseInt(text, 8);
};

function checksumOk(block: Uint8Array): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i]!;
  return sum === octal(block, 148, 8);
}

export function tarEntry(archive: Uint8Array, name: string): Uint8Array | null {
  let offset = 0;
  while (offset + BLOCK <= archive.length) {
    const header = archive.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) return null;
    if (!checksumOk(header)) throw new Error("tar header checksum mismatch");
    const size = octal(header, 124, 12);
    const type = String.fromCharCode(header[156]!);
    const start = offset + BLOCK;
    if (start + size > archive.length) throw new Error("tar entry runs past the archive's end");
    if (field(header, 0, 100) === name && (type === "0" || type === "\0")) return archive.subarray(start, start + size);
    offset = start + Math.ceil(size / BLOCK) * BLOCK;
  }
  return null;
}
