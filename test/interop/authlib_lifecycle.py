"""The app lifecycle with Python Authlib (OAuth2Session), configured from the RFC 8414 metadata alone.

Run by test/contract/interop.test.ts with Debian's /usr/bin/python3. Reads from the environment:
DEVPLAT_BASE (the issuer, {base_url}), CLIENT_ID, CLIENT_SECRET, REDIRECT_URI. Prints one JSON line
per step on stdout. At each "authorize" step it prints the authorization URL Authlib built and reads
the redirect the player's browser was sent to (one line on stdin). Never prints a token or secret;
exits non-zero with a message on stderr when a step fails unexpectedly.
"""

import json
import os
import sys

from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session, OAuthError
from authlib.oauth2.rfc8414 import AuthorizationServerMetadata, get_well_known_url

BASE = os.environ['DEVPLAT_BASE']
CLIENT_ID = os.environ['CLIENT_ID']
CLIENT_SECRET = os.environ['CLIENT_SECRET']
REDIRECT_URI = os.environ['REDIRECT_URI']
USER_SCOPE = 'city.public.read profile.basic.read'
# The registry holds more cities than the default limit of 25 (which answers 503, never a list cut short).
CITIES = '/cities?limit=100'


def emit(step, **fields):
    print(json.dumps({'step': step, **fields}), flush=True)


def token_facts(token):
    return {
        'token_type': token.get('token_type'),
        'expires_in': token.get('expires_in'),
        'scope': token.get('scope'),
        'has_refresh_token': 'refresh_token' in token,
    }


def api(session, path):
    """GET {base}{path} with the session's bearer token: status, and the body without city details."""
    response = session.get(BASE + path)
    body = response.json() if response.content else None
    if isinstance(body, dict) and isinstance(body.get('data'), list):
        body = {**body, 'data': len(body['data'])}
    return {'status': response.status_code, 'body': body}


def session_for(metadata, method):
    return OAuth2Session(
        CLIENT_ID,
        CLIENT_SECRET,
        token_endpoint_auth_method=method,
        revocation_endpoint_auth_method=method,
        redirect_uri=REDIRECT_URI,
        code_challenge_method='S256',
        token_endpoint=metadata['token_endpoint'],
        default_timeout=10,
    )


def authorize(session, metadata, label):
    """The authorization request with PKCE S256 (built by Authlib), the player's answer, the code's redemption."""
    verifier = generate_token(64)
    url, state = session.create_authorization_url(
        metadata['authorization_endpoint'], code_verifier=verifier, scope=USER_SCOPE
    )
    emit('authorize', flow=label, url=url)
    callback = sys.stdin.readline().strip()
    token = session.fetch_token(
        metadata['token_endpoint'], authorization_response=callback, state=state, code_verifier=verifier
    )
    emit(f'{label}:code', token=token_facts(token))
    return token


def main():
    # AUTHLIB_INSECURE_TRANSPORT lets Authlib's metadata check accept the loopback http test platform.
    metadata_url = get_well_known_url(BASE, external=True)
    response = OAuth2Session(default_timeout=10).get(metadata_url, withhold_token=True)
    response.raise_for_status()
    metadata = AuthorizationServerMetadata(response.json())
    metadata.validate()
    if metadata['issuer'] != BASE:
        raise SystemExit(f'metadata issuer {metadata["issuer"]} is not {BASE}')
    emit(
        'metadata',
        url=metadata_url,
        **{k: metadata[k] for k in ('authorization_endpoint', 'token_endpoint', 'revocation_endpoint')},
    )

    for method in ('client_secret_basic', 'client_secret_post'):
        app = session_for(metadata, method)
        token = app.fetch_token(grant_type='client_credentials', scope='city.public.read')
        emit(f'client_credentials:{method}', token=token_facts(token), cities=api(app, CITIES))

    # Refresh rotation with client_secret_basic: the rotated refresh token is refused afterwards.
    user = session_for(metadata, 'client_secret_basic')
    first = dict(authorize(user, metadata, 'rotation'))
    emit('rotation:api', cities=api(user, CITIES), me=api(user, '/me'))
    second = user.refresh_token(metadata['token_endpoint'])
    emit(
        'rotation:refresh',
        token=token_facts(second),
        rotated=second['refresh_token'] != first['refresh_token'],
        new_access_token=second['access_token'] != first['access_token'],
        me=api(user, '/me'),
    )
    try:
        user.refresh_token(metadata['token_endpoint'], refresh_token=first['refresh_token'])
        emit('rotation:old_refresh', error=None)
    except OAuthError as error:
        emit('rotation:old_refresh', error=error.error)

    # Revocation with client_secret_post, through a fresh consent.
    user = session_for(metadata, 'client_secret_post')
    token = authorize(user, metadata, 'revocation')
    emit('revocation:api', me=api(user, '/me'))
    answer = user.revoke_token(
        metadata['revocation_endpoint'], token=token['refresh_token'], token_type_hint='refresh_token'
    )
    emit('revocation:revoke', status=answer.status_code, body=answer.text, me=api(user, '/me'))


if __name__ == '__main__':
    try:
        main()
    except (OAuthError, OSError, KeyError, ValueError) as error:
        sys.exit(f'authlib lifecycle failed: {type(error).__name__}: {error}')
