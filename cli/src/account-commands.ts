// register, login, logout, whoami: the developer account and the console session.
import type { CommandSpec } from './command.ts';
import { credentialsPath, forgetSession, storeSession } from './credentials.ts';
import { NotSignedInError } from './errors.ts';
import { requiredOption } from './option-specs.ts';
import { when } from './output.ts';
import { passwordSources, passwordStdinOption, readNewPassword, readPassword } from './password-input.ts';
import { isApiKey } from './session.ts';

interface Account {
  id: string;
  email: string;
  kind: string;
  display_name: string | null;
}

const passwordNote = passwordSources('The password');

const register: CommandSpec = {
  path: ['register'],
  summary: 'Create a developer account on the console',
  options: [
    requiredOption('email', '<email>', 'Your e-mail address'),
    requiredOption('display-name', '<name>', 'Your name as the console shows it'),
    passwordStdinOption,
  ],
  description: [passwordNote],
  examples: [
    'devplat register --email ada@example.com --display-name "Ada Lovelace"',
    'printf "%s\\n" "$PASSWORD" | devplat register --email ada@example.com --display-name Ada --password-stdin',
  ],
  async run(ctx) {
    const email = ctx.options.email as string;
    const secret = await readNewPassword(ctx, 'Choose a password: ');
    const answer = await ctx
      .anonymous()
      .request<Account>(
        'POST',
        '/accounts',
        { email, password: secret, display_name: ctx.options['display-name'] },
        { EMAIL_TAKEN: `Sign in with that address instead: devplat login --email ${email}` },
      );
    ctx.out.answer(answer.text, () => {
      ctx.out.line(`Registered ${answer.body.email} (${answer.body.kind} account) on ${ctx.consoleUrl}.`);
      ctx.out.line(`Next, sign in: devplat login --email ${answer.body.email}`);
    });
  },
};

const login: CommandSpec = {
  path: ['login'],
  summary: 'Sign in to the console and keep the session',
  options: [requiredOption('email', '<email>', 'Your account e-mail address'), passwordStdinOption],
  description: [
    passwordNote,
    'The session token is kept in $DEVPLAT_CONFIG_DIR/credentials.json (default ~/.config/devplat), ' +
      'readable only by you, one per console URL. DEVPLAT_TOKEN, when set, is used instead, and an API key ' +
      "(DEVPLAT_API_KEY or --api-key-stdin) before both. With --json the console's answer, session token " +
      'included, is printed.',
  ],
  examples: [
    'devplat login --email ada@example.com',
    'devplat login --email ada@example.com --password-stdin < pw.txt',
  ],
  async run(ctx) {
    const email = ctx.options.email as string;
    const secret = await readPassword(ctx, `Password for ${email}: `);
    const answer = await ctx
      .anonymous()
      .request<{ token: string; expires_at: string }>('POST', '/sessions', { email, password: secret });
    const file = credentialsPath(ctx.io.env);
    storeSession(file, ctx.consoleUrl, { token: answer.body.token, email, expires_at: answer.body.expires_at });
    ctx.out.answer(answer.text, () => {
      ctx.out.line(`Signed in to ${ctx.consoleUrl} as ${email} until ${when(answer.body.expires_at)}.`);
      ctx.out.line(`The session is kept in ${file}.`);
    });
    if (ctx.io.env.DEVPLAT_API_KEY)
      ctx.out.note('Note: DEVPLAT_API_KEY is set: every command but keys and logout uses it instead of this session.');
    else if (ctx.io.env.DEVPLAT_TOKEN)
      ctx.out.note('Note: DEVPLAT_TOKEN is set, and commands use it instead of this session.');
  },
};

const logout: CommandSpec = {
  path: ['logout'],
  summary: 'Sign out: end the console session and forget it',
  description: ['An API key is not signed out: revoke it with devplat keys revoke <id>.'],
  async run(ctx) {
    const session = ctx.session({ sessionOnly: true });
    let alreadyEnded = false;
    try {
      await ctx.signedIn({ sessionOnly: true }).request('DELETE', '/sessions/current');
    } catch (error) {
      if (!(error instanceof NotSignedInError)) throw error;
      alreadyEnded = true;
    }
    if (session.from === 'credentials') forgetSession(credentialsPath(ctx.io.env), ctx.consoleUrl);
    ctx.out.line(`Signed out of ${ctx.consoleUrl}${alreadyEnded ? ' (the session had already ended)' : ''}.`);
    if (session.from === 'DEVPLAT_TOKEN') ctx.out.note('DEVPLAT_TOKEN still holds the ended session: unset it.');
  },
};

const whoami: CommandSpec = {
  path: ['whoami'],
  summary: 'Show the account you are signed in as',
  async run(ctx) {
    const session = ctx.session();
    const answer = await ctx.signedIn().request<Account>('GET', '/account');
    ctx.out.answer(answer.text, () =>
      ctx.out.fields([
        ['Console', ctx.consoleUrl],
        ['Email', answer.body.email],
        ['Display name', answer.body.display_name ?? '-'],
        ['Account', answer.body.kind],
        isApiKey(session)
          ? ['API key', `from ${session.from}`]
          : [
              'Session',
              session.from === 'DEVPLAT_TOKEN'
                ? 'from DEVPLAT_TOKEN'
                : `until ${when(session.expiresAt)} (${credentialsPath(ctx.io.env)})`,
            ],
      ]),
    );
  },
};

export const accountCommands = [register, login, logout, whoami];
