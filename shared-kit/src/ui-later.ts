// The Chakra components './ui.ts' ships lazily, and their recipes (not in theme.tsx's system).
export { DataList, Dialog, Menu, Progress, RadioCard, RadioGroup, SegmentGroup, Slider, Switch, Table, Toast, Toaster } from '@chakra-ui/react';
export {
  dataListSlotRecipe,
  dialogSlotRecipe,
  menuSlotRecipe,
  progressSlotRecipe,
  radioCardSlotRecipe,
  radioGroupSlotRecipe,
  segmentGroupSlotRecipe,
  sliderSlotRecipe,
  switchSlotRecipe,
  tableSlotRecipe,
  toastSlotRecipe,
} from '@chakra-ui/react/theme';
