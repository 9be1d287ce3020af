// Sign out, from any page of the player client: the session ends and the player goes to sign-in.
import { type PageApp, readForm, sendPage, sessionFormValid } from '@devplat/http';
import { type PlayerClient, safeReturnTo, signInFor } from './client.ts';
import { formRefusedPage } from './pages.ts';

export function signOutRoutes(route: PageApp['route'], { sessions }: PlayerClient) {
  route('/signout', {
    POST: async (ctx) => {
      const form = await readForm(ctx);
      const current = await sessions.current(ctx);
      if (current && !sessionFormValid(current.session, form.csrf)) {
        const message = 'This page has expired and you are still signed in. Open it again.';
        return sendPage(ctx, 403, formRefusedPage(message));
      }
      await sessions.end(ctx);
      ctx.status = 303;
      // "Not you?" on the consent screen comes back to the same request after the next sign-in.
      ctx.redirect(form.return_to === undefined ? '/signin' : signInFor(safeReturnTo(form.return_to)));
    },
  });
}
