/**
 * @module Fake third-party servers for integration tests.
 */
export * from './server.js';
export * from './oauth-provider.js';
export * from './metabase.js';
export * from './checkr.js';
export * from './slack.js';
export * from './google-drive.js';
export * from './generic.js';
export * from './generic-provider.js';
export * from './post-auth-providers.js';
export * from './github.js';
export * from './hubspot.js';
export * from './notion.js';
export * from './linear.js';
