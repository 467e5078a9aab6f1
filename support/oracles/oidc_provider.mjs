// An OpenID provider for the tests: node-oidc-provider (certified by the OpenID Foundation) on
// 127.0.0.1:PORT, its development sign-in form taking any password. Accounts are read from the
// JSON file ACCOUNTS at every token ({"login": {"preferred_username": "...", "groups": [...]}}), so
// a test changes someone's groups at the provider by rewriting it. Access tokens are JWTs for the
// audience AUDIENCE (RFC 9068), signed with a fresh RSA key a run. NO_DEVICE_FLOW=1 turns the
// device grant off, as some providers have it.
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
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const key = { ...privateKey.export({ format: 'jwk' }), kid: 'test-1', use: 'sig', alg: 'RS256' };

const provider = new Provider(`http://127.0.0.1:${port}`, {
  clients: [{
    client_id: clientId, // the service's own, confidential
    client_secret: clientSecret,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    redirect_uris: [redirectUri],
    token_endpoint_auth_method: 'client_secret_post',
  }, {
    client_id: cliClientId, // bpctl's, public: the device flow, or a loopback redirect on any port
    application_type: 'native',
    grant_types: [...(deviceFlow ? ['urn:ietf:params:oauth:grant-type:device_code'] : []), 'authorization_code', 'refresh_token'],
    response_types: ['code'],
    redirect_uris: ['http://127.0.0.1/callback'],
    token_endpoint_auth_method: 'none',
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
        audience: resource,
        accessTokenFormat: 'jwt',
        accessTokenTTL: 600,
        jwt: { sign: { alg: 'RS256' } },
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
