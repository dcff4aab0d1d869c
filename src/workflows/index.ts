// Every workflow the canopy worker registers.
export { autorunWorkflow } from './autorun';
export { loopRunWorkflow } from './loop-run';
export { scheduledRunWorkflow } from './scheduled-run';
