// Reads a PDF back the way a viewer does (pdfjs-dist), for tests that check what a document says.
import { createRequire } from 'node:module';
import path from 'node:path';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

const require = createRequire(import.meta.url);
const standardFontDataUrl = `${path.join(path.dirname(require.resolve('pdfjs-dist/package.json')), 'standard_fonts')}${path.sep}`;

export interface PdfContent {
  numPages: number;
  /** The text of each page, items joined by spaces, line ends kept. */
  pages: string[];
  /** All pages' text, joined. */
  text: string;
  info: Record<string, unknown>;
}

/** Parses the bytes (throws if they are not a valid PDF) and extracts the text of every page. */
export async function pdfText(bytes: Buffer | Uint8Array): Promise<PdfContent> {
  const pdf = await getDocument({ data: new Uint8Array(bytes), standardFontDataUrl, isEvalSupported: false, verbosity: 0 }).promise;
  try {
    const pages: string[] = [];
    for (let n = 1; n <= pdf.numPages; n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      pages.push(content.items.map((i) => ('str' in i ? i.str + (i.hasEOL ? '\n' : ' ') : '')).join(''));
    }
    const meta = await pdf.getMetadata();
    return { numPages: pdf.numPages, pages, text: pages.join('\n'), info: meta.info as Record<string, unknown> };
  } finally {
    await pdf.destroy();
  }
}
