/**
 * Base paths as Nango's (issue 30, item 3) for the breadth entries of pool C (provider names a–k that
 * no function in the public library calls yet): each row is an endpoint as the provider's docs write
 * it after the base Nango's users call relative to, and the URL the docs give for it.
 */
import { type PathRow, testPathFamilies } from './catalog-paths-check.js';

const families: Record<string, PathRow[]> = {
  Google: [
    ['google-bigquery', {}, '/bigquery/v2/projects', 'https://bigquery.googleapis.com/bigquery/v2/projects'],
    ['google-cloud-storage', {}, '/storage/v1/b/my-bucket/o', 'https://storage.googleapis.com/storage/v1/b/my-bucket/o'],
    ['google-contacts', {}, '/v1/people/me/connections', 'https://people.googleapis.com/v1/people/me/connections'],
    ['google-forms', {}, '/v1/forms/abc', 'https://forms.googleapis.com/v1/forms/abc'],
    ['google-maps', {}, '/maps/api/geocode/json', 'https://maps.googleapis.com/maps/api/geocode/json'],
    ['google-meet', {}, '/v2/conferenceRecords', 'https://meet.googleapis.com/v2/conferenceRecords'],
    ['google-search-console', {}, '/v3/sites', 'https://www.googleapis.com/webmasters/v3/sites'],
    ['google-slides', {}, '/v1/presentations/abc', 'https://slides.googleapis.com/v1/presentations/abc'],
    ['google-tasks', {}, '/tasks/v1/users/@me/lists', 'https://tasks.googleapis.com/tasks/v1/users/@me/lists'],
    ['google-workspace-admin', {}, '/admin/directory/v1/users', 'https://admin.googleapis.com/admin/directory/v1/users'],
  ],
};

testPathFamilies(families);
