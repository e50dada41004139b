/**
 * Wikipedia pages for WikiGame, read as GEM's MediaWiki backend reads them (`wikigame/backend.py`): one `query` request
 * per page (`prop=extracts|links|info|pageprops`, plain-text extract, redirects followed, main-namespace links, the
 * disambiguation flag) and only the FIRST batch of its answer — so a page's links are the API's first batch (10 by the
 * API's default link limit), as in GEM. A disambiguation page is replaced by its first linked option that exists; a
 * missing page by the API's top search hit. Random pages: `list=random` in the main namespace, redrawn when they have
 * no links.
 */
import { CookbookError } from '@cookbook/core';

/** A page as the game sees it. */
export interface WikiPage {
  title: string;
  /** Plain text of the article. */
  content: string;
  /** Titles of the linked main-namespace pages (the neighbours). */
  links: string[];
}

/** Where pages come from. */
export interface WikiBackend {
  random(): Promise<WikiPage | undefined>;
  getPage(title: string): Promise<WikiPage | undefined>;
  /** Throws this backend's error (a page could not be had). */
  fail(message: string): never;
}

/** WikiGame could not get a page (offline, the API failed, or no page matched). */
export class WikiBackendError extends CookbookError {
  override name = 'WikiBackendError';
}

/** Bounds: the most bytes read of one API answer, and the most attempts per page (GEM: 5). */
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
const MAX_ATTEMPTS = 5;

interface ApiPage {
  title?: string;
  missing?: boolean;
  extract?: string;
  links?: { title: string }[];
  pageprops?: { disambiguation?: string };
}

export class MediaWikiBackend implements WikiBackend {
  readonly url: string;
  private readonly doFetch: typeof fetch;
  private readonly userAgent: string;

  constructor(options: { url: string; fetch?: typeof fetch; userAgent?: string }) {
    this.url = options.url;
    this.doFetch = options.fetch ?? fetch;
    this.userAgent = options.userAgent ?? 'cookbook-gem-wikigame/1 (a research RL environment)';
  }

  fail(message: string): never {
    throw new WikiBackendError(`WikiGame: ${message} (pages come from ${this.url})`);
  }

  /** One `action=query` request; its first batch (GEM takes `next()` of pywikiapi's continuation iterator). */
  private async query(params: Record<string, string>): Promise<Record<string, unknown>> {
    const search = new URLSearchParams({
      action: 'query',
      format: 'json',
      formatversion: '2',
      maxlag: '5',
      continue: '',
      ...params,
    });
    let res: Response;
    try {
      res = await this.doFetch(`${this.url}?${search}`, { headers: { 'User-Agent': this.userAgent } });
    } catch (e) {
      return this.fail(
        `cannot reach the MediaWiki API (${(e as Error).message}). WikiGame is online only: it needs the network`,
      );
    }
    if (!res.ok) return this.fail(`the MediaWiki API answered HTTP ${res.status}`);
    const text = await res.text();
    if (text.length > MAX_RESPONSE_BYTES) return this.fail(`an API answer of ${text.length} bytes is too large`);
    let body: { query?: Record<string, unknown>; error?: { info?: string } };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      return this.fail('the MediaWiki API did not answer JSON');
    }
    if (body.error !== undefined) return this.fail(`MediaWiki API error: ${body.error.info ?? 'unknown'}`);
    return body.query ?? {};
  }

  private async direct(title: string): Promise<ApiPage | undefined> {
    const q = await this.query({
      prop: 'extracts|links|info|pageprops',
      titles: title,
      explaintext: '1',
      redirects: '1',
      ppprop: 'disambiguation',
      plnamespace: '0',
    });
    return (q.pages as ApiPage[] | undefined)?.[0];
  }

  private static toPage(p: ApiPage): WikiPage {
    return { title: p.title ?? '', content: p.extract ?? '', links: (p.links ?? []).map((l) => l.title) };
  }

  async getPage(title: string): Promise<WikiPage | undefined> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const p = await this.direct(title);
      if (p === undefined) continue;
      if (p.pageprops?.disambiguation !== undefined) {
        for (const option of p.links ?? []) {
          const o = await this.direct(option.title);
          if (o !== undefined && o.missing !== true) return MediaWikiBackend.toPage(o);
        }
        continue;
      }
      if (p.missing === true) {
        const q = await this.query({ list: 'search', srsearch: p.title ?? title, srlimit: '1', srprop: '' });
        const hit = (q.search as { title: string }[] | undefined)?.[0];
        if (hit === undefined) return undefined;
        return this.getPage(hit.title);
      }
      return MediaWikiBackend.toPage(p);
    }
    return undefined;
  }

  async random(): Promise<WikiPage | undefined> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const q = await this.query({ list: 'random', rnnamespace: '0', rnlimit: '1' });
      const title = (q.random as { title: string }[] | undefined)?.[0]?.title;
      if (title === undefined) return undefined;
      const page = await this.getPage(title);
      if (page !== undefined && page.links.length > 0) return page;
    }
    return undefined;
  }
}
