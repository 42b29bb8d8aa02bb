// The React Router API the front-ends use, re-exported from one shared-kit singleton module, the
// same way as './ui.ts' does for Chakra: a shared library ships whole (react-router is ~67 KiB
// gzip shared, ~31 KiB for what is listed here), so 'react-router' and 'react-router-dom' are not
// MF shared modules and apps import routing from '@aim/shared-kit/router' only (a direct import
// would bundle a private router that cannot see the shell's <RouterProvider>;
// shell/test/shared-imports.test.ts checks it). Need another export? Add it here.
export {
  BrowserRouter,
  Link,
  NavLink,
  Navigate,
  Outlet,
  Route,
  RouterProvider,
  Routes,
  createBrowserRouter,
  matchRoutes,
  useLocation,
  useNavigate,
  useSearchParams,
} from 'react-router-dom';
export type { RouteObject } from 'react-router-dom';
