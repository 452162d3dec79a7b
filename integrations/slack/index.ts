import sendMessage from './send-message.js';
import users from './users.js';

export const slackScripts = { users, 'send-message': sendMessage };
