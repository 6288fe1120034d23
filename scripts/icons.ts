// node scripts/icons.ts: renders public/assets/favicon.svg into the raster icons committed beside
// it (public/favicon.ico, public/assets/icon-192.png), with headless Chromium. Run it after
// changing the SVG; nothing else runs it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH, INSTALL_CHROMIUM } from './chromium.ts';
import { ROOT } from './wrangler.ts';

if (!CHROMIUM_PATH) throw new Error(`no Chromium: ${INSTALL_CHROMIUM}`);

const svg = readFileSync(join(ROOT, 'public/assets/favicon.svg'), 'utf8');

/** An .ico holding one PNG image (allowed since Windows Vista, read by every current browser). */
function icoOf(png: Buffer, size: number): Buffer {
  const header = Buffer.alloc(6);
  header.writeUInt16LE(0, 0); // reserved
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(1, 4); // one image
  const entry = Buffer.alloc(16);
  entry.writeUInt8(size >= 256 ? 0 : size, 0);
  entry.writeUInt8(size >= 256 ? 0 : size, 1);
  entry.writeUInt8(0, 2); // no palette
  entry.writeUInt8(0, 3);
  entry.writeUInt16LE(1, 4); // colour planes
  entry.writeUInt16LE(32, 6); // bits per pixel
  entry.writeUInt32LE(png.length, 8);
  entry.writeUInt32LE(header.length + entry.length, 12);
  return Buffer.concat([header, entry, png]);
}

const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
try {
  const page = await browser.newPage();
  async function render(size: number): Promise<Buffer> {
    await page.setViewportSize({ width: size, height: size });
    await page.setContent(
      `<html><body style="margin:0;background:transparent">${svg.replace('<svg ', `<svg width="${size}" height="${size}" `)}</body></html>`,
    );
    return page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } });
  }
  writeFileSync(join(ROOT, 'public/favicon.ico'), icoOf(await render(32), 32));
  writeFileSync(join(ROOT, 'public/assets/icon-192.png'), await render(192));
  console.log('wrote public/favicon.ico and public/assets/icon-192.png');
} finally {
  await browser.close();
}
