/**
 * Relative links and headings of Markdown files, read the way GitHub renders them: what
 * `docs-links.test.ts` checks. Links inside fenced code blocks and code spans are not links.
 */

/** One `[text](target)` link of a file. */
export interface MarkdownLink {
  /** The path part (empty for `#anchor` links within the same file). */
  readonly path: string;
  /** The fragment without `#`, or undefined. */
  readonly anchor?: string;
  /** 1-based line of the link's target, for messages. */
  readonly line: number;
}

const fence = /^(\s*)(```|~~~)/;

/** The text with fenced code blocks blanked out (lines kept, so line numbers stay right). */
function withoutFences(markdown: string): string {
  let open: string | undefined;
  return markdown
    .split('\n')
    .map((line) => {
      const marker = fence.exec(line)?.[2];
      if (marker !== undefined && (open === undefined || open === marker)) {
        open = open === undefined ? marker : undefined;
        return '';
      }
      return open === undefined ? line : '';
    })
    .join('\n');
}

/** Code spans blanked out with spaces of the same length (so offsets stay right). */
function withoutCodeSpans(text: string): string {
  return text.replace(/`[^`\n]*`/g, (span) => ' '.repeat(span.length));
}

const linkPattern = /\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;

/** Relative links (no scheme such as `https:` or `mailto:`) with their line numbers. */
export function relativeLinks(markdown: string): MarkdownLink[] {
  const text = withoutCodeSpans(withoutFences(markdown));
  const links: MarkdownLink[] = [];
  for (const match of text.matchAll(linkPattern)) {
    const target = match[1] ?? '';
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const line = text.slice(0, match.index).split('\n').length;
    const hash = target.indexOf('#');
    links.push(
      hash < 0
        ? { path: target, line }
        : { path: target.slice(0, hash), anchor: decodeURIComponent(target.slice(hash + 1)), line },
    );
  }
  return links;
}

/**
 * GitHub's anchor of a heading text (github-slugger): Markdown formatting removed, lower case,
 * every character that is not a letter, mark, number, connector, hyphen or space dropped, spaces
 * to hyphens.
 */
export function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[`*]/g, '')
    .trim();
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a file offers: heading slugs (repeats numbered `-1`, `-2` …) and HTML ids. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutFences(markdown).split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading !== undefined) {
      const slug = githubSlug(heading);
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const id of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id[1] ?? '');
  }
  return anchors;
}
