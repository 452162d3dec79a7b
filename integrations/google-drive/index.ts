import documents from './documents.js';
import fetchDocument from './fetch-document.js';

export const googleDriveScripts = { documents, 'fetch-document': fetchDocument };
