/**
 * Harvest v3's largest page. The pagination guide (https://harvestdocs.greenhouse.io/docs/pagination) lets
 * `per_page` be given on the first request only; its bound is not in the pages we could read, so v1's
 * 500 is assumed (see emulators/greenhouse/README.md).
 */
export const MAX_PER_PAGE = 500
