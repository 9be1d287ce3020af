// The cookies of the page apps: HttpOnly, unsigned (their values are random tokens), SameSite as
// the site needs, and Secure with the __Host- prefix when the site is served over https (the
// prefix needs path /, so a cookie kept to one path goes without it).
import type { Context } from 'koa';

export interface CookieOptions {
  /** The name over http; over https and on path / it gets the __Host- prefix. */
  name: string;
  sameSite: 'strict' | 'lax';
  secure: boolean;
  /** Default /. */
  path?: string;
}

export interface Cookie {
  readonly name: string;
  get(ctx: Context): string | undefined;
  /** Sets the value; without maxAgeSeconds the cookie ends with the browser session. */
  set(ctx: Context, value: string, maxAgeSeconds?: number): void;
  clear(ctx: Context): void;
}

export function cookie({ name, sameSite, secure, path = '/' }: CookieOptions): Cookie {
  const fullName = secure && path === '/' ? `__Host-${name}` : name;
  const options = { httpOnly: true, sameSite, secure, path, signed: false, overwrite: true };
  return {
    name: fullName,
    get: (ctx) => ctx.cookies.get(fullName, { signed: false }),
    set: (ctx, value, maxAgeSeconds) =>
      ctx.cookies.set(
        fullName,
        value,
        maxAgeSeconds === undefined ? options : { ...options, maxAge: maxAgeSeconds * 1000 },
      ),
    clear: (ctx) => ctx.cookies.set(fullName, '', { ...options, maxAge: 0 }),
  };
}
