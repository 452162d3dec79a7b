/** @module api/version — the API version (the OpenAPI document's, and the minimum client's). */
export const API_VERSION = '0.67.0';
