/**
 * @module The billing routes: the account's billing calls and GET /billing/config (routes.ts),
 * and the sandbox's calls (sandbox-routes.ts), which mount nothing unless the sandbox provider runs.
 */
export { billingRoutes } from './routes.ts';
export { billingSandboxRoutes } from './sandbox-routes.ts';
