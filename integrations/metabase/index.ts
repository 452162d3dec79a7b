import createUser from './create-user.js';
import disableUser from './disable-user.js';
import enableUser from './enable-user.js';
import fetchUser from './fetch-user.js';
import updateUser from './update-user.js';
import users from './users.js';

export const metabaseScripts = {
  users,
  'create-user': createUser,
  'update-user': updateUser,
  'fetch-user': fetchUser,
  'disable-user': disableUser,
  'enable-user': enableUser,
};
