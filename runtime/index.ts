/**
 * The runtime's one door: everything `api/` and `cli/` may use of `runtime/`, and nothing else.
 * The linter refuses any other runtime module from those folders (eslint.config.js, "one door
 * into the runtime"), so the supervisor's, the dispatcher's and the notifiers' inner modules stay
 * the runtime's own and can change without touching the API. A name the API needs is added
 * here, beside its kind, with the module it comes from.
 */

// Starting and holding a running runtime (supervisor, dispatcher, notifications, metrics).
export { startRuntime, type Runtime, type RuntimeOptions } from './runtime.js';
export { identification, serviceName, serviceVersion } from './version.js';
// Set by `pier serve` before any worker thread starts (heap-start.ts, tier-up.ts say why).
export { setInitialOldSpace } from './heap-start.js';
export { setTurbofanThreshold } from './tier-up.js';

// Operations asked of the runtime (facade.ts): uploads, routes, redelivery, partner checks.
export {
  checkConnectionTo,
  checkHandUpload,
  outboundContextOf,
  reachOfPartner,
  redeliverWithoutRuntime,
  routedTargets,
  type CheckAnswer,
  type HandUploadCheck,
  type HandUploadForm,
} from './facade.js';
// What the dispatcher's acceptances take (a message sent by hand, or built with control numbers).
export type { AcceptItem } from '../flow/commands/accept.js';

// Secrets at rest: the box that seals and opens them, and the start-up check of its key.
export { loadSecretBox, SecretBox } from './secrets/secret-box.js';
export { checkSecretKey } from './secrets/key-check.js';

// Plugin instances: their stored configuration, lifecycle, state across processes, refusals.
export { listInstances, loadInstanceConfig, openSecrets, settingsOf } from './supervisor/instance-config.js';
export { actions, type Action, type ServiceStatus } from './lifecycle/states.js';
export {
  announce as announceInstanceChange,
  processStates,
  recordAction as recordServiceAction,
} from './supervisor/desired-state.js';
export type { ServiceView } from './supervisor/instance.js';
export {
  ActionRefused,
  InstanceNotRunning,
  InstanceUnresponsive,
  StartFailed,
  UnknownInstance,
} from './supervisor/errors.js';

// Alerts and notifications: the log, the alerts standing, a notifier's test notification.
export { NotificationLog } from './alerts/notification-log.js';
export { openAlerts, recentAlerts } from './alerts/open-alerts.js';
export { sendTestNotification } from './alerts/test-notification.js';

// Certificates: the expiry schedule and how their users are named in refusals and reports.
export { checkCertificateExpiry, scheduleExpiryChecks } from './certificates/expiry-check.js';
export { describeCertificateUsers } from './certificates/usage-text.js';

// AS2 profiles' interoperability fields (presets and defaults).
export {
  defaultInteropFields,
  interopFieldNames,
  pickInteropFields,
  presetFields,
  type InteropField,
  type InteropFields,
} from './as2/interop-fields.js';

// The live message history feed (server-sent events).
export {
  feedStatements,
  framesOf,
  type FeedBatch,
  type FeedLine,
  type HistoryFeed,
  type StreamLimits,
} from './events/history-feed.js';

// Certificate exchanges with partners (CEM): the answering policies and the service's refusals.
export { type CemPolicy } from './cem/cem-service.js';
export { CemRefusal } from './cem/refusal.js';
