// Every workflow the canopy worker registers.
export { loopRunWorkflow } from './loop-run';
