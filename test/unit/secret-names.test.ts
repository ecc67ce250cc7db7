/** The scrub list (`src/config/secret-names.ts`): what commands of the built-in agent never inherit. */
import { describe, expect, test } from "bun:test";
import { isSecretName } from "../../src/config/secret-names.ts";

describe("isSecretName", () => {
  test.each([
    // model keys and the suffixes that were there before
    "OPENAI_API_KEY", "ANTHROPIC_AUTH_TOKEN", "MY_SECRET", "openai_api_key",
    // AWS
    "AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "AWS_SESSION_TOKEN",
    // GCP
    "GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_API_KEY", "CLOUDSDK_AUTH_ACCESS_TOKEN",
    // Azure
    "AZURE_CLIENT_SECRET", "AZURE_CLIENT_CERTIFICATE_PASSWORD", "AZURE_STORAGE_KEY", "AZURE_STORAGE_CONNECTION_STRING", "AZURE_STORAGE_SAS_TOKEN",
    // GitHub, npm
    "GH_TOKEN", "GITHUB_TOKEN", "NPM_TOKEN", "NODE_AUTH_TOKEN", "npm_config__auth", "npm_config__authToken",
    // passwords and credentials by suffix, and the few named ones
    "DB_PASSWORD", "SMTP_PASS", "LDAP_PASSWD", "REGISTRY_CREDENTIAL", "STRIPE_KEY", "PGPASSWORD", "MYSQL_PWD", "DOCKER_AUTH_CONFIG",
    // personal tokens, signing secrets, credentials inside addresses, and the bare names
    "GITHUB_PAT", "GH_PAT", "SECRET_KEY_BASE", "SECRET_KEY", "SENTRY_DSN", "SLACK_WEBHOOK_URL", "PASSWORD", "TOKEN", "SECRET", "API_KEY", "APIKEY",
  ])("%s is scrubbed", (name) => {
    expect(isSecretName(name)).toBe(true);
  });

  test.each([
    "PATH", "HOME", "PWD", "OLDPWD", "SSH_AUTH_SOCK", "KEYBOARD_LAYOUT", "CACHE_BYPASS", "PASSWORD_STORE_DIR", "TOKENIZERS_PARALLELISM",
    "OPENAI_BASE_URL", "OPENAI_MODEL", "LANG", "TERM", "SVC_HOME", "SVC_AGENT_RUN", "GIT_ASKPASS", "COMPAT", "TOKENS_DIR", "WEBHOOK_URL_DOCS",
    // an ending inside the name, not at its end
    "MY_KEYBOARD", "APP_TOKEN_DIR", "DB_PASSAGE", "CI_SECRETS_DIR",
  ])("%s is kept", (name) => {
    expect(isSecretName(name)).toBe(false);
  });
});
