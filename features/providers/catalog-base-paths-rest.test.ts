/**
 * Base paths as Nango's (issue 30, item 3) for the last providers of the public function library:
 * each row is an endpoint as those functions call it, with the connection-config keys Nango names,
 * and the URL the provider's docs give for it.
 */
import { type PathRow, testPathFamilies } from './catalog-paths-check.js';

const families: Record<string, PathRow[]> = {
  'token exchanges (TWO_STEP)': [
    ['odoo-cc', { serverUrl: 'acme.odoo.com' }, '/1.0/res.partner', 'https://acme.odoo.com/restapi/1.0/res.partner'],
    ['perimeter81', { domain: 'perimeter81' }, '/v1/users', 'https://api.perimeter81.com/api/rest/v1/users'],
    ['perimeter81', { domain: 'eu.sase.checkpoint' }, '/v1/users', 'https://api.eu.sase.checkpoint.com/api/rest/v1/users'],
    ['tripletex', { environment: 'tripletex.no' }, 'v2/invoice', 'https://tripletex.no/v2/invoice'],
    ['tripletex', { environment: 'api-test.tripletex.tech' }, 'v2/customer', 'https://api-test.tripletex.tech/v2/customer'],
  ],
  'signed tokens (JWT)': [
    ['snowflake-jwt', { subdomain: 'myorg-myaccount' }, '/api/v2/statements', 'https://myorg-myaccount.snowflakecomputing.com/api/v2/statements'],
    ['snowflake-jwt', { subdomain: 'xy12345.us-east-2.aws' }, '/api/v2/statements', 'https://xy12345.us-east-2.aws.snowflakecomputing.com/api/v2/statements'],
  ],
  'TikTok API for Business': [
    ['tiktok-ads', {}, '/campaign/get/', 'https://business-api.tiktok.com/open_api/v1.3/campaign/get/'],
    ['tiktok-ads', {}, 'pixel/list/', 'https://business-api.tiktok.com/open_api/v1.3/pixel/list/'],
    ['tiktok-accounts', {}, '/identity/get/', 'https://business-api.tiktok.com/open_api/v1.3/identity/get/'],
  ],
};

testPathFamilies(families);
