/**
 * @module A ZIP archive of files kept as they are (method 0, "stored"): what a LoRA trainer
 * takes as its `input_images`. Photos are already compressed, so deflating them again would
 * cost time for nothing. PKWARE APPNOTE 6.3: a local header and the bytes per file, then the
 * central directory and its end record; names in UTF-8 (flag bit 11), no ZIP64 (an archive
 * stays under 4 GiB: at most 30 photos of 10 MB).
 */
import { crc32 } from 'node:zlib';

export interface ZipEntry {
  name: string;
  data: Buffer;
}

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const VERSION = 20;
const UTF8_NAMES = 0x0800;
// DOS date 1980-01-01, time 00:00: the archive's bytes depend only on its files
const DOS_DATE = (0 << 9) | (1 << 5) | 1;
const LIMIT = 0xffffffff;

/**
 * The archive of `entries`, in order.
 *
 * @example
 * zipStored([{ name: 'photo-01.jpg', data: jpeg }]) // a Buffer starting PK\x03\x04
 */
export function zipStored(entries: readonly ZipEntry[]): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const crc = crc32(entry.data);
    const size = entry.data.length;
    if (size > LIMIT || offset > LIMIT) throw new Error('zip archive too large (no ZIP64)');

    const local = Buffer.alloc(30);
    local.writeUInt32LE(LOCAL_HEADER, 0);
    local.writeUInt16LE(VERSION, 4);
    local.writeUInt16LE(UTF8_NAMES, 6);
    local.writeUInt16LE(0, 8); // stored
    local.writeUInt16LE(0, 10); // time
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(size, 18); // compressed = uncompressed
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28); // no extra field

    const header = Buffer.alloc(46);
    header.writeUInt32LE(CENTRAL_HEADER, 0);
    header.writeUInt16LE(VERSION, 4); // made by (MS-DOS attributes)
    header.writeUInt16LE(VERSION, 6); // needed to extract
    header.writeUInt16LE(UTF8_NAMES, 8);
    header.writeUInt16LE(0, 10);
    header.writeUInt16LE(0, 12);
    header.writeUInt16LE(DOS_DATE, 14);
    header.writeUInt32LE(crc, 16);
    header.writeUInt32LE(size, 20);
    header.writeUInt32LE(size, 24);
    header.writeUInt16LE(name.length, 28);
    // extra length, comment length, disk number, internal and external attributes: 0
    header.writeUInt32LE(offset, 42);

    parts.push(local, name, entry.data);
    central.push(header, name);
    offset += local.length + name.length + size;
  }
  const directory = Buffer.concat(central);
  if (offset > LIMIT || entries.length > 0xffff) throw new Error('zip archive too large (no ZIP64)');
  const end = Buffer.alloc(22);
  end.writeUInt32LE(END_OF_CENTRAL_DIRECTORY, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, directory, end]);
}
