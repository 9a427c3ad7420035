/**
 * The components a page is built from (see docs/contributing.md, "Adding a page"): the page
 * frame, the list with filters, the detail parts, the form with pickers, the refusal summary,
 * and the small pieces (badges, times, facts, tables) a page's data is drawn with.
 */
export { openPage, PageRequest, type Answer, type PathOf } from './page-frame.js';
export {
  drawList,
  filterForm,
  listWithFilters,
  type ListSpec,
  type LoadedList,
} from './list-with-filters.js';
export { actionButton, backLink, registerDelete, section } from './detail.js';
export { keptInput, recordForm, withChoices, withPickers, type RecordFormSpec } from './form-with-pickers.js';
export { refusalAlert, refusalNotice, refused, refusedForm, refusedState } from './refusal-summary.js';
export { checkResult, checkSteps, type CheckAnswer } from './check-steps.js';
export { badge, facts, pager, refusal, table, when, type Column, type PageInfo } from './data.js';
export { type UiDeps } from './request-context.js';
export type { AnswerOf, ListRow } from '../api-answers.js';
