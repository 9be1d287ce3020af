"""The sample app in Python: a small web app that signs a player in through the Developer Platform.

The authorization code flow with PKCE (S256) by Authlib's OAuth2Session, the player's GET /me profile
and the city list, a refresh that keeps the rotated refresh token, and a sign-out that revokes it.
The standard library's http.server serves the pages. Read it top to bottom: it is what your own app
does. The same app in TypeScript is examples/sample-app.

    BASE_URL=http://127.0.0.1:8080/developer/v1 CLIENT_ID=svc_... CLIENT_SECRET=... \\
    REDIRECT_URI=http://127.0.0.1:3000/callback python3 app.py

It listens at REDIRECT_URI's host and port, and takes its path as the callback. Python 3.9 or later
with authlib and requests (apt install python3-authlib python3-requests, or pip install authlib
requests).
"""

import html
import os
import secrets
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urljoin, urlsplit

import requests
from authlib.common.errors import AuthlibBaseError
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session
from authlib.oauth2.rfc8414 import get_well_known_url

BASE_URL = os.environ['BASE_URL']  # the platform's base address, which is the issuer
CLIENT_ID = os.environ['CLIENT_ID']
CLIENT_SECRET = os.environ['CLIENT_SECRET']
REDIRECT_URI = os.environ['REDIRECT_URI']  # registered with the app, e.g. http://127.0.0.1:3000/callback
CALLBACK = urlsplit(REDIRECT_URI)

# The endpoints, from the RFC 8414 metadata (the well-known path goes before the issuer's path).
metadata = requests.get(get_well_known_url(BASE_URL, external=True), timeout=10).json()

# Each browser's session, under a random id in an HttpOnly cookie; kept in memory: a sample.
sessions = {}


def oauth(session):
    """An OAuth 2.0 client holding this session's tokens; a rotated pair is kept in the session."""

    def keep(token, **_):
        session['token'] = token

    return OAuth2Session(
        CLIENT_ID,
        CLIENT_SECRET,  # client_secret_basic
        token=session.get('token'),
        redirect_uri=REDIRECT_URI,
        code_challenge_method='S256',
        token_endpoint=metadata['token_endpoint'],  # an expired access token is refreshed by itself
        update_token=keep,
        default_timeout=10,
    )


def page(body):
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sample app</title>
<style>body{{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}}
form{{display:inline}}.notice{{background:#eef7ee;padding:.5rem}}</style></head><body>{body}</body></html>"""


class App(BaseHTTPRequestHandler):
    def session(self):
        self.set_cookie = None
        cookie = SimpleCookie(self.headers.get('cookie', ''))
        sid = cookie['sample_session'].value if 'sample_session' in cookie else None
        if sid not in sessions:
            sid = secrets.token_urlsafe(24)
            sessions[sid] = {'csrf': secrets.token_urlsafe(24)}
            # SameSite=Lax: the cookie comes back with the consent screen's redirect (a top-level GET).
            self.set_cookie = f'sample_session={sid}; Path=/; HttpOnly; SameSite=Lax'
        return sessions[sid]

    def answer(self, status, body='', location=None):
        self.send_response(status)
        if self.set_cookie:
            self.send_header('Set-Cookie', self.set_cookie)
        if location:
            self.send_header('Location', location)
        self.send_header('Content-Type', 'text/html; charset=utf-8')
        self.send_header(
            'Content-Security-Policy',
            "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
        )
        self.send_header('X-Content-Type-Options', 'nosniff')
        self.end_headers()
        self.wfile.write(body.encode())

    def do_GET(self):
        session = self.session()
        url = urlsplit(self.path)
        if url.path == '/':
            self.home(session)
        elif url.path == '/login':
            # PKCE: Authlib sends the S256 challenge of this verifier; the state ties the answer to this browser.
            verifier = generate_token(64)
            authorize, state = oauth(session).create_authorization_url(
                metadata['authorization_endpoint'], code_verifier=verifier, scope='profile.basic.read city.public.read'
            )
            session['pending'] = {'state': state, 'verifier': verifier}
            self.answer(302, location=authorize)
        elif url.path == CALLBACK.path:
            self.callback(session, parse_qs(url.query))
        else:
            self.answer(404, 'Not found.')

    def callback(self, session, query):
        pending = session.pop('pending', None)
        if not pending:
            self.answer(400, 'No sign-in is under way here: start again from the home page.')
            return
        if 'error' in query:  # access_denied when the player declines, …
            session['notice'] = f"Not signed in: {query['error'][0]}."
        else:
            try:
                # Checks the state, then redeems the code with the verifier and the client secret.
                session['token'] = oauth(session).fetch_token(
                    metadata['token_endpoint'],
                    authorization_response=urljoin(REDIRECT_URI, self.path),
                    state=pending['state'],
                    code_verifier=pending['verifier'],
                )
                session['notice'] = 'Signed in.'
            except AuthlibBaseError as error:  # invalid_grant for a used or expired code, a wrong state, …
                session['notice'] = f'Not signed in: {error.error}.'
        self.answer(303, location='/')

    def home(self, session):
        notice = session.pop('notice', None)
        notice = f'<p class="notice">{html.escape(notice)}</p>' if notice else ''
        sign_in = '<a href="/login">Sign in with the Developer Platform</a>'
        if 'token' not in session:
            self.answer(200, page(f'<h1>Sample app</h1>{notice}<p>{sign_in}</p>'))
            return
        client = oauth(session)
        try:
            me = client.get(f'{BASE_URL}/me')
            cities = client.get(f'{BASE_URL}/cities', params={'limit': 100})
            problem = None if me.status_code == 200 else me.json()
        except AuthlibBaseError as error:  # the refresh of an expired access token was refused
            problem = {'code': error.error, 'detail': error.description}
        if problem:
            # The consent ended, the token was revoked, the player was disabled: sign in again.
            del session['token']
            refused = f"{html.escape(str(problem.get('code')))} ({html.escape(str(problem.get('detail')))})"
            self.answer(200, page(f'<h1>Sample app</h1><p>The platform refused: {refused}. {sign_in}</p>'))
            return
        profile, token = me.json(), session['token']
        names = [city['name'] for city in cities.json().get('data', [])] if cities.status_code == 200 else None
        csrf = f'<input type="hidden" name="csrf" value="{html.escape(session["csrf"])}">'
        city_list = (
            '<ul aria-label="Cities">' + ''.join(f'<li>{html.escape(name)}</li>' for name in names) + '</ul>'
            if names is not None
            else '<p>Not granted.</p>'
        )
        display, sub = html.escape(profile['display_name'] or 'player'), html.escape(profile['sub'])
        self.answer(
            200,
            page(
                f'<h1>Hello, <span data-testid="display-name">{display}</span></h1>{notice}'
                f'<p>Your <code>sub</code> for this app: <code data-testid="sub">{sub}</code></p>'
                f'<p>Granted: <code>{html.escape(token["scope"])}</code>; '
                f'the access token expires in {token["expires_in"]} s.</p>'
                f'<form method="post" action="/refresh">{csrf}<button>Refresh tokens</button></form> '
                f'<form method="post" action="/logout">{csrf}<button>Sign out (revoke)</button></form>'
                f'<h2>Cities</h2>{city_list}'
            ),
        )

    def do_POST(self):
        session = self.session()
        length = int(self.headers.get('content-length') or 0)
        form = parse_qs(self.rfile.read(length).decode('utf-8', 'replace'))
        if form.get('csrf') != [session['csrf']]:  # a POST form must carry the session's CSRF token
            self.answer(403, 'The form expired: go back and try again.')
            return
        if self.path not in ('/refresh', '/logout'):
            self.answer(404, 'Not found.')
            return
        token = session.pop('token', None)
        try:
            if token and self.path == '/refresh':
                # Rotation: the old refresh token stops working at once; keep the new pair.
                session['token'] = oauth({'token': token}).refresh_token(metadata['token_endpoint'])
                session['notice'] = 'Refreshed: a new access token and a new refresh token.'
            elif token:
                # Revoking the refresh token ends the consent: every token under it stops.
                oauth(session).revoke_token(
                    metadata['revocation_endpoint'], token['refresh_token'], token_type_hint='refresh_token'
                ).raise_for_status()
                session['notice'] = 'Signed out: the tokens are revoked.'
        except (AuthlibBaseError, requests.RequestException) as error:  # the consent ended, the platform is down, …
            session['notice'] = f'The platform refused: {getattr(error, "error", error)}. Sign in again.'
        self.answer(303, location='/')

    def log_message(self, format, *args):  # no request lines: they would show the codes
        pass


if __name__ == '__main__':
    server = ThreadingHTTPServer((CALLBACK.hostname, CALLBACK.port), App)
    print(f'Sample app at {CALLBACK.scheme}://{CALLBACK.netloc} (app {CLIENT_ID})', flush=True)
    print('Press Ctrl-C to stop.', flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        server.server_close()
