// Every workflow the canopy worker registers.
export { autorunWorkflow } from './autorun';
export { loopRunWorkflow } from './loop-run';
export { notificationWorkflow } from './notification';
export { scheduledRunWorkflow } from './scheduled-run';
