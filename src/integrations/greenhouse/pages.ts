/**
 * Harvest v3's largest page: `per_page` 1-500, given on the first request only
 * (https://harvestdocs.greenhouse.io/docs/pagination; the bound from
 * airbytehq/airbyte@0481622ca248698d2c33f746bb3c9b97b9d68c31:airbyte-integrations/connectors/source-greenhouse/manifest.yaml,
 * whose 422 handling names "per_page outside 1-500").
 */
export const MAX_PER_PAGE = 500
