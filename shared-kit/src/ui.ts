// The Chakra UI components the front-ends use, re-exported from the one shared module that
// carries them (an MF singleton like every '@aim/shared-kit/*' module). '@chakra-ui/react' itself
// is NOT shared: a shared library ships whole (1.1 MB raw, 300 KiB gzip, with date pickers, color
// pickers, tree views... nobody renders), while this module is built with the shell and only
// keeps what is listed here. So the single-instance rule is: front-ends import Chakra from
// '@aim/shared-kit/ui' only (shell/test/shared-imports.test.ts checks it); a direct import would
// bundle a private Chakra with its own context. Need another component? Add it here.
import { createElement, useEffect, useSyncExternalStore, type ElementType } from 'react';

export {
  Alert,
  Badge,
  Box,
  Button,
  Card,
  Center,
  ChakraProvider,
  Circle,
  CloseButton,
  Code,
  EmptyState,
  Field,
  Flex,
  Grid,
  Group,
  HStack,
  Heading,
  Icon,
  IconButton,
  Image,
  Input,
  InputGroup,
  Link,
  List,
  NativeSelect,
  Portal,
  Separator,
  SimpleGrid,
  Skeleton,
  Spinner,
  Square,
  Stack,
  Tabs,
  Text,
  Textarea,
  VStack,
  Wrap,
  chakra,
  createToaster,
  useChakraContext,
} from '@chakra-ui/react';
export type { IconProps, SimpleGridProps } from '@chakra-ui/react';

// Components that load with their own chunk: none is needed to show a tool or the frame (Dialog
// and Toaster are on the first render, but closed and empty; SegmentGroup only in a hidden tab),
// and together with their recipes they are ~60 KiB gzip (Menu alone brings floating-ui) that a
// cold load would otherwise wait for. The chunk is fetched after the task of the first render
// that shows a lazy part (or once the page is idle): the same Chakra module instances either way
// (one chunk of this build), so contexts and the theme are shared as usual. Until it is there a
// lazy part renders nothing (it never suspends, so nothing else waits). Parts that show nothing
// when they mount do not fetch it (issue 24: the frame renders before a slow remote, and its
// closed Dialog and empty Toaster made the chunk compete with the remote's own): a root that is
// controlled closed (`open={false}`) fetches it when it opens, the Toaster with its first toast
// (which waits in the toaster's store meanwhile and shows when the chunk is there).
type Later = typeof import('./ui-later.ts');
let later: Later | null = null;
let loading: Promise<Later> | null = null;
const waiting = new Set<() => void>();

/** Loads the lazily shipped components (the component tests' setup awaits it). */
export function preloadLaterUi(): Promise<Later> {
  loading ??= new Promise((resolve) => setTimeout(resolve, 0))
    .then(() => import('./ui-later.ts'))
    .then((mod) => {
      later = mod;
      for (const rerender of waiting) rerender();
      return mod;
    });
  return loading;
}

function subscribeLater(rerender: () => void) {
  waiting.add(rerender);
  return () => void waiting.delete(rerender);
}

const getLater = () => later;

/**
 * A component that renders `pick(module)` once the lazy chunk is there (nothing until then).
 * `showsNothing(props)`: this part would show nothing yet (a closed root), so it does not fetch
 * the chunk; `wake(props, load)`: when such a part should fetch it after all (returns a cleanup).
 */
function lazyPart(
  pick: (mod: Later) => ElementType,
  displayName: string,
  quiet?: { showsNothing: (props: Record<string, unknown>) => boolean; wake?: (props: Record<string, unknown>, load: () => void) => () => void },
) {
  let component: ElementType | null = null;
  const Part = (props: Record<string, unknown>) => {
    const mod = useSyncExternalStore(subscribeLater, getLater, getLater);
    const waiting = !mod && Boolean(quiet?.showsNothing(props));
    const wakeSource = waiting ? props.toaster : undefined;
    // props are only read for the toaster store (wakeSource): a new store subscribes again
    useEffect(() => {
      if (mod) return;
      if (!waiting) return void preloadLaterUi();
      return quiet?.wake?.(props, () => void preloadLaterUi());
    }, [mod, waiting, wakeSource]);
    if (!mod) return null;
    component ??= pick(mod);
    return createElement(component, props);
  };
  Part.displayName = displayName;
  return Part;
}

/** Provider parts: they take the recipe (its key is not in the system, see theme.tsx). */
const ROOTS = new Set(['Root', 'RootProvider']);

/** A root controlled closed shows nothing (its trigger, if any, is outside it): it waits until it opens. */
const closedRoot = { showsNothing: (props: Record<string, unknown>) => props.open === false };

/** The Toaster shows nothing until a toast is raised: it waits for the first one in its store. */
type ToastStore = { getCount(): number; subscribe(fn: () => void): () => void };
const emptyToaster = {
  showsNothing: (props: Record<string, unknown>) => (props.toaster as ToastStore | undefined)?.getCount() === 0,
  wake: (props: Record<string, unknown>, load: () => void) => (props.toaster as ToastStore).subscribe(load),
};

/**
 * `Menu.Root`, `Menu.Item`...: each part lazy (made on first access). The recipes of these
 * components ship with them too: the root part passes its slot recipe as the `recipe` prop
 * (Chakra's own way to style without a theme entry), which styles every part below it.
 */
function lazyNamespace<K extends keyof Later>(name: K, recipe: keyof Later): Later[K] {
  const parts = new Map<string, unknown>();
  return new Proxy({} as Later[K], {
    get: (_, key) => {
      if (typeof key !== 'string') return undefined;
      if (!parts.has(key))
        parts.set(
          key,
          lazyPart(
            (mod) => {
              const part = (mod[name] as unknown as Record<string, ElementType>)[key]!;
              if (!ROOTS.has(key)) return part;
              const withRecipe = (props: object) => createElement(part, { recipe: mod[recipe], ...props });
              return withRecipe;
            },
            `${name}.${key}`,
            ROOTS.has(key) ? closedRoot : undefined,
          ),
        );
      return parts.get(key);
    },
  });
}

export const DataList = lazyNamespace('DataList', 'dataListSlotRecipe');
export const Dialog = lazyNamespace('Dialog', 'dialogSlotRecipe');
export const Menu = lazyNamespace('Menu', 'menuSlotRecipe');
export const Progress = lazyNamespace('Progress', 'progressSlotRecipe');
export const RadioCard = lazyNamespace('RadioCard', 'radioCardSlotRecipe');
export const RadioGroup = lazyNamespace('RadioGroup', 'radioGroupSlotRecipe');
export const SegmentGroup = lazyNamespace('SegmentGroup', 'segmentGroupSlotRecipe');
export const Slider = lazyNamespace('Slider', 'sliderSlotRecipe');
export const Switch = lazyNamespace('Switch', 'switchSlotRecipe');
export const Table = lazyNamespace('Table', 'tableSlotRecipe');
export const Toast = lazyNamespace('Toast', 'toastSlotRecipe');
export const Toaster = lazyPart((mod) => mod.Toaster as ElementType, 'Toaster', emptyToaster) as unknown as Later['Toaster'];

/**
 * Whether the page shows its content: the app rendered into #root and no loading placeholder
 * (`aria-busy="true"`: the shell's full-page and remote fallbacks) is left.
 */
const contentShown = () => Boolean(document.getElementById('root')?.firstElementChild) && !document.querySelector('[aria-busy="true"]');

// Otherwise the chunk loads once the page is idle AFTER its content shows (the load event can
// come first: a lazy route or a remote is still on its way), or after 15 s whatever happens.
if (typeof window !== 'undefined' && typeof requestIdleCallback === 'function') {
  const giveUpAt = performance.now() + 15_000;
  const idle = () =>
    requestIdleCallback(
      () => {
        if (contentShown() || performance.now() > giveUpAt) void preloadLaterUi();
        else setTimeout(idle, 100);
      },
      { timeout: 10_000 },
    );
  if (document.readyState === 'complete') idle();
  else window.addEventListener('load', idle, { once: true });
}
