// Async boundary: the MF runtime negotiates the shared singletons before any React code runs.
import('./bootstrap.tsx');
