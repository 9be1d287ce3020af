// How every process checks an access token of this platform (jose's jwtVerify options): a JWT
// typed at+jwt (RFC 9068), signed with EdDSA, issued by {base_url} for {base_url}. The api checks
// each call's token with it; auth, a token presented for revocation.

export const accessTokenChecks = (baseUrl: URL) => ({
  algorithms: ['EdDSA'],
  typ: 'at+jwt',
  issuer: baseUrl.href,
  audience: baseUrl.href,
});
