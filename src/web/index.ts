// What `canopy up` needs to serve the web app beside MCP.
export { webRoutes } from './routes';
export { recordServedOrigin, webOrigin } from './server';
export { newSignInLink } from './sign-in-links';
