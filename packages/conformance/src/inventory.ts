/**
 * The reference checkpoint-saver conformance inventory the suite realises (seed 002): the names of its cases by
 * group, in the seed's order. Data only, so the case table and the tables it gathers import it without a cycle.
 */

/**
 * The reference checkpoint-saver conformance inventory as seed 002 pins it (commit e5e37b5d70db): 92 cases
 * plus `put_replaces_an_existing_id`, which the reference savers' `put` documents but its suite does not
 * name. Group order and case order are the seed's; a case's number is its 1-based position in its group.
 */
export const REFERENCE_INVENTORY = {
  GET_TUPLE: [
    'test_get_tuple_nonexistent_returns_none',
    'test_get_tuple_latest_when_no_checkpoint_id',
    'test_get_tuple_specific_checkpoint_id',
    'test_get_tuple_config_structure',
    'test_get_tuple_checkpoint_fields',
    'test_get_tuple_metadata',
    'test_get_tuple_parent_config',
    'test_get_tuple_pending_writes',
    'test_get_tuple_pending_writes_in_writes_sort_key_order',
    'test_get_tuple_respects_namespace',
    'test_get_tuple_nonexistent_checkpoint_id',
  ],
  PUT: [
    'test_put_returns_config',
    'test_put_roundtrip',
    'test_put_preserves_channel_values',
    'test_put_preserves_channel_versions',
    'test_put_preserves_versions_seen',
    'test_put_preserves_metadata',
    'test_put_root_namespace',
    'test_put_child_namespace',
    'test_put_default_namespace',
    'test_put_multiple_checkpoints_same_thread',
    'test_put_multiple_threads_isolated',
    'test_put_parent_config',
    'test_put_incremental_channel_update',
    'test_put_new_channel_added',
    'test_put_channel_removed',
    'test_put_preserves_run_id',
    'test_put_preserves_versions_seen_values',
    'put_replaces_an_existing_id',
  ],
  PUT_WRITES: [
    'test_put_writes_basic',
    'test_put_writes_multiple_writes_same_task',
    'test_put_writes_multiple_tasks',
    'test_put_writes_preserves_task_id',
    'test_put_writes_preserves_channel_and_value',
    'test_put_writes_task_path',
    'test_put_writes_idempotent',
    'test_put_writes_special_channels',
    'test_put_writes_across_namespaces',
    'test_put_writes_cleared_on_next_checkpoint',
  ],
  LIST: [
    'test_list_all',
    'test_list_by_thread',
    'test_list_by_namespace',
    'test_list_ordering',
    'test_list_metadata_filter_single_key',
    'test_list_metadata_filter_step',
    'test_list_before',
    'test_list_limit',
    'test_list_limit_plus_before',
    'test_list_combined_thread_and_filter',
    'test_list_empty_result',
    'test_list_includes_pending_writes',
    'test_list_multiple_namespaces',
    'test_list_metadata_filter_multiple_keys',
    'test_list_metadata_filter_no_match',
    'test_list_metadata_custom_keys',
  ],
  DELETE_THREAD: [
    'test_delete_thread_removes_checkpoints',
    'test_delete_thread_removes_writes',
    'test_delete_thread_removes_all_namespaces',
    'test_delete_thread_preserves_other_threads',
    'test_delete_thread_nonexistent_noop',
  ],
  COPY_THREAD: [
    'test_copy_thread_basic',
    'test_copy_thread_all_checkpoints',
    'test_copy_thread_preserves_metadata',
    'test_copy_thread_preserves_namespaces',
    'test_copy_thread_preserves_writes',
    'test_copy_thread_preserves_ordering',
    'test_copy_thread_source_unchanged',
    'test_copy_thread_nonexistent_source',
  ],
  DELETE_FOR_RUNS: [
    'test_delete_for_runs_single',
    'test_delete_for_runs_multiple',
    'test_delete_for_runs_preserves_other_runs',
    'test_delete_for_runs_removes_writes',
    'test_delete_for_runs_empty_list_noop',
    'test_delete_for_runs_nonexistent_noop',
    'test_delete_for_runs_across_namespaces',
  ],
  DELTA_CHANNEL_HISTORY: [
    'test_history_returns_writes_oldest_first',
    'test_history_seed_is_nearest_snapshot',
    'test_history_excludes_target_pending_writes',
    'test_history_multi_channel',
    'test_history_empty_channels_returns_empty',
    'test_history_walk_to_root_no_seed',
    'test_history_migration_plain_value_as_seed',
    'test_history_seed_ancestor_own_writes_are_replayed',
    'test_history_orders_parallel_writes_by_task_path',
    'test_history_orders_pathless_writes_first',
  ],
  PRUNE: [
    'test_prune_keep_latest_single_thread',
    'test_prune_keep_latest_multiple_threads',
    'test_prune_keep_latest_across_namespaces',
    'test_prune_keep_latest_preserves_writes',
    'test_prune_delete_all',
    'test_prune_preserves_other_threads',
    'test_prune_empty_list_noop',
    'test_prune_nonexistent_noop',
  ],
} as const;

/** How many reference cases the seed counts: 92 of the inventory, plus `put_replaces_an_existing_id`. */
export const REFERENCE_CASE_COUNT = 93;

export type ReferenceGroup = keyof typeof REFERENCE_INVENTORY;
/** The name of one reference case; names are unique across groups. */
export type ReferenceCaseName = (typeof REFERENCE_INVENTORY)[ReferenceGroup][number];
