// The Ink views, which are ES modules. The CLI bundle keeps this module a file of its own, loaded by
// require: code in the bundle runs through node:vm, where Node 20 cannot `import()`.
export const loadWatchView = () => import('./watch/view.mjs');

export const loadTuiApp = () => import('./tui/app.mjs');
