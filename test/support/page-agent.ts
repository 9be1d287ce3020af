// A browser on a page site (the player client, the console's web UI) for tests that send every page
// route a value PostgreSQL cannot store: it signs in (or not), reads each page of the site for the
// query parameters its links carry and the forms that post to each route, and makes the requests
// that put each bad value in each path parameter, form field and query parameter. A form is read
// again from its page when it is sent: its CSRF token goes with the cookie that page set.
import { type Caller, type Planned, type Sent, textOf } from './fuzz-requests.ts';
import { formsOf, linksOf, type PageForm } from './page-forms.ts';
import { Jar } from './players.ts';
import { fillPath, type Operation, pathPattern } from './route-catalogue.ts';
import { type BadField, escapedWith, everyValue, formBody, queryString, unstorableText } from './unstorable-values.ts';

export interface PageAgentOptions {
  /** Signs in, or only opens the site; called again when a request ended the session. */
  start(agent: PageAgent): Promise<void>;
  /** Pages to read besides the site's GET routes (an app's authorization request, say). */
  seeds(): Promise<string[]>;
  /** Whether the agent is signed in (and should be again when a request signs it out). */
  signedIn: boolean;
  /** A valid value for a path parameter, by its name. */
  pathValue(name: string): string;
}

/** A browser on a page site: its cookies, and what its pages link to and post. */
export class PageAgent implements Caller {
  readonly jar = new Jar();
  /** Per route: the query a link to it carries. */
  private queries = new Map<string, Map<string, string>>();
  /** Per route: the page whose form posts to it (its CSRF token is good with that page's cookies only). */
  private formPages = new Map<string, string>();
  /** Per route: the fields of that form. */
  private formFields = new Map<string, string[]>();
  /** The CSRF token the last page read held: a form with nothing but it, where no page shows one. */
  private csrf = '';
  private routes: Operation[] = [];
  readonly label: string;
  readonly origin: string;
  private readonly options: PageAgentOptions;

  constructor(label: string, origin: string, options: PageAgentOptions) {
    this.label = label;
    this.origin = origin;
    this.options = options;
  }

  private pathValue(name: string): string {
    return this.options.pathValue(name);
  }

  headers() {
    return { cookie: this.jar.header() };
  }

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...init.headers, cookie: this.jar.header() },
    });
    this.jar.take(response);
    return response;
  }

  take(response: Response) {
    this.jar.take(response);
  }

  /** A redirect to sign in; or a 401 (a wrong password answers one too) when the site's home sends there. */
  async lost({ status, location }: { status: number; location: string | null }): Promise<boolean> {
    const toSignIn = (status: number, location: string | null) =>
      status >= 300 && status < 400 && new URL(location ?? '/', this.origin).pathname === '/signin';
    if (!this.options.signedIn || !(status === 401 || toSignIn(status, location))) return false;
    if (status !== 401) return true;
    const home = await this.fetch(`${this.origin}/`);
    await home.body?.cancel();
    return toSignIn(home.status, home.headers.get('location'));
  }

  async renew() {
    await this.options.start(this);
  }

  private routeOf(url: URL): string | undefined {
    if (url.origin !== this.origin) return undefined;
    return this.routes.find((route) => pathPattern(route.path).test(url.pathname))?.path;
  }

  /** A page's HTML (none for a redirect or another type), its forms noted. */
  private async read(page: string): Promise<{ response: Response; forms: PageForm[]; links: URL[] }> {
    const response = await this.fetch(page);
    const html = await textOf(response, response.headers.get('content-type')?.startsWith('text/html') === true);
    const forms = formsOf(html, new URL(page));
    this.csrf = forms.map((form) => form.fields.get('csrf')).find((csrf) => csrf !== undefined) ?? this.csrf;
    const location = response.headers.get('location');
    return {
      response,
      forms,
      links: [...(location ? [new URL(location, page)] : []), ...linksOf(html, new URL(page)), new URL(page)],
    };
  }

  /** Signs in (or only opens the site), then reads every page: what it links to, which page posts where. */
  async begin(routes: Operation[]) {
    this.routes = routes;
    await this.options.start(this);
    const pages = [
      ...routes
        .filter((route) => route.method === 'GET')
        .map(
          (route) =>
            `${this.origin}${fillPath(route.path, (index) => encodeURIComponent(this.pathValue(route.pathParameters[index] as string)))}`,
        ),
      ...(await this.options.seeds()),
    ];
    for (const page of pages) {
      const { forms, links } = await this.read(page);
      const getForms = forms.filter((form) => form.method === 'GET');
      for (const [url, fields] of [
        ...links.map((link) => [link, link.searchParams] as const),
        ...getForms.map((form) => [form.action, form.fields] as const),
      ]) {
        const route = this.routeOf(url);
        if (!route) continue;
        const known = this.queries.get(route) ?? new Map<string, string>();
        for (const [name, value] of fields) if (!known.has(name)) known.set(name, value);
        this.queries.set(route, known);
      }
      for (const form of forms.filter((each) => each.method === 'POST')) {
        const route = this.routeOf(form.action);
        if (!route || this.formPages.has(route)) continue;
        this.formPages.set(route, page);
        this.formFields.set(route, [...form.fields.keys()]);
      }
    }
  }

  /** The fields of the form posting to `route`, read afresh (a CSRF token and its cookie go together). */
  private async form(route: string): Promise<[string, string][]> {
    const page = this.formPages.get(route);
    if (page === undefined) return [['csrf', this.csrf]];
    const { forms } = await this.read(page);
    const form = forms.find((each) => each.method === 'POST' && this.routeOf(each.action) === route);
    return [...(form?.fields ?? [['csrf', this.csrf]])];
  }

  /** The requests for one of the site's operations: each path parameter, each field its pages show. */
  requests(operation: Operation): Planned[] {
    const name = `${operation.method} ${operation.listener} ${operation.path}`;
    const post = operation.method === 'POST';
    const query = [...(this.queries.get(operation.path) ?? [])];
    const plainQuery = query.map(([field, value]) => [field, encodeURIComponent(value)] as [string, string]);
    const fixedPath = fillPath(operation.path, (index) =>
      encodeURIComponent(this.pathValue(operation.pathParameters[index] as string)),
    );
    // A form is read when it is sent: its CSRF token goes with the cookie its page set.
    const sent = async (path: string, queryEntries: [string, string][], bad?: BadField): Promise<Sent> => ({
      method: operation.method,
      url: `${this.origin}${path}${queryString(queryEntries)}`,
      headers: post ? { 'content-type': 'application/x-www-form-urlencoded' } : {},
      body: post ? formBody(await this.form(operation.path), bad) : undefined,
    });
    const requests: Planned[] = [];
    operation.pathParameters.forEach((parameter, position) => {
      for (const bad of unstorableText) {
        const path = fillPath(operation.path, (index) =>
          index === position
            ? escapedWith(this.pathValue(parameter), bad)
            : encodeURIComponent(this.pathValue(operation.pathParameters[index] as string)),
        );
        requests.push({
          what: `${name}: ${bad.label} in the path's ${parameter}`,
          build: () => sent(path, post ? [] : plainQuery),
        });
      }
    });
    for (const field of this.formFields.get(operation.path) ?? []) {
      for (const bad of everyValue) {
        requests.push({
          what: `${name}: ${bad.label} in the form's ${field}`,
          build: () => sent(fixedPath, [], { name: field, value: bad }),
        });
      }
    }
    for (const [field, value] of query) {
      for (const bad of everyValue) {
        const badQuery = query.map(
          ([other, given]) =>
            [other, other === field ? escapedWith(value, bad) : encodeURIComponent(given)] as [string, string],
        );
        requests.push({
          what: `${name}: ${bad.label} in the query's ${field}`,
          build: () => sent(fixedPath, badQuery),
        });
      }
    }
    if (operation.pathParameters.length === 0) {
      for (const bad of unstorableText) {
        requests.push({
          what: `${name}: ${bad.label} in an undeclared query parameter`,
          build: () => sent(fixedPath, [...plainQuery, ['x', escapedWith('x', bad)]]),
        });
      }
    }
    return requests;
  }
}
