// An OpenID provider for the tests: node-oidc-provider (certified by the OpenID Foundation) on
// 127.0.0.1:PORT, its development sign-in form taking any password. Accounts are read from the
// JSON file ACCOUNTS at every token ({"login": {"preferred_username": "...", "groups": [...]}}), so
// a test changes someone's groups at the provider by rewriting it. Access tokens are JWTs for the
// audience AUDIENCE (RFC 9068), signed with a fresh key a run: RSA, or with SIGNING_ALG=ES256 an EC
// P-256 one. CLIENT_AUTH names how the service's client authenticates at the token endpoint
// (client_secret_basic, the default, or client_secret_post). NO_DEVICE_FLOW=1 turns the device
// grant off, as some providers have it.
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Provider from 'oidc-provider';

const [port, accountsFile, audience, clientId, clientSecret, redirectUri, cliClientId] = process.argv.slice(2);
const deviceFlow = !process.env.NO_DEVICE_FLOW;
const accounts = () => JSON.parse(readFileSync(accountsFile, 'utf8'));
const claimsOf = (id) => {
  const account = accounts()[id] || {};
  return { preferred_username: account.preferred_username ?? id, groups: account.groups || [] };
};
const alg = process.env.SIGNING_ALG || 'RS256';
const clientAuth = process.env.CLIENT_AUTH || 'client_secret_basic';
const { privateKey } = alg === 'ES256'
  ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
  : generateKeyPairSync('rsa', { modulusLength: 2048 });
const key = { ...privateKey.export({ format: 'jwk' }), kid: 'test-1', use: 'sig', alg };

const provider = new Provider(`http://127.0.0.1:${port}`, {
  clients: [{
    client_id: clientId, // the service's own, confidential
    client_secret: clientSecret,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    redirect_uris: redirectUri.split(','), // the service's callback, and the tests' own
    token_endpoint_auth_method: clientAuth,
    id_token_signed_response_alg: alg,
  }, {
    client_id: cliClientId, // bpctl's, public: the device flow, or a loopback redirect on any port
    application_type: 'native',
    grant_types: [...(deviceFlow ? ['urn:ietf:params:oauth:grant-type:device_code'] : []), 'authorization_code', 'refresh_token'],
    response_types: ['code'],
    redirect_uris: ['http://127.0.0.1/callback'],
    token_endpoint_auth_method: 'none',
    id_token_signed_response_alg: alg,
  }],
  jwks: { keys: [key] },
  claims: { openid: ['sub'], profile: ['preferred_username', 'groups'] },
  features: {
    devInteractions: { enabled: true },
    deviceFlow: { enabled: deviceFlow }, // a provider without it: bpctl's loopback redirect
    resourceIndicators: {
      enabled: true,
      defaultResource: () => audience,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, resource) => ({
        scope: 'openid profile',
        audience: process.env.TOKEN_AUDIENCE || resource, // TOKEN_AUDIENCE: the client id, as some providers do
        accessTokenFormat: 'jwt',
        accessTokenTTL: 600,
        jwt: { sign: { alg } },
      }),
    },
  },
  async findAccount(_ctx, id) {
    return { accountId: id, claims: async () => ({ sub: id, ...claimsOf(id) }) };
  },
  async extraTokenClaims(_ctx, token) {
    return token.accountId ? claimsOf(token.accountId) : undefined;
  },
});
provider.listen(Number(port), '127.0.0.1');
