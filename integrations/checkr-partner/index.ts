import backgroundCheckParameters from './background-check-parameters.js';
import backgroundCheckServices from './background-check-services.js';
import backgroundChecks from './background-checks.js';
import createCandidate from './create-candidate.js';
import triggerBackgroundCheck from './trigger-background-check.js';

/** The same scripts serve `checkr-partner` and `checkr-partner-staging`. */
export const checkrScripts = {
  'background-check-services': backgroundCheckServices,
  'background-check-parameters': backgroundCheckParameters,
  'trigger-background-check': triggerBackgroundCheck,
  'create-candidate': createCandidate,
  'background-checks': backgroundChecks,
};

/** The action after which backgroundCheckWorkflow starts. */
export const TRIGGER_ACTION = 'trigger-background-check';
export const CHECKR_PROVIDERS: readonly string[] = ['checkr-partner', 'checkr-partner-staging'];
