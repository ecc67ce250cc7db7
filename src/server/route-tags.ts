/**
 * The capability tags of the routes this build mounts (their `detail["x-svc-capability"]`), known
 * without assembling the app: the front door answers `/capabilities` from them before the app is
 * built. `test/unit/server/route-tags.test.ts` checks them against the assembled app's routes; a
 * route that adds a tag adds it here too.
 */
export const ROUTE_TAGS: ReadonlySet<string> = new Set(
  `auth_device_flow auth_provider_install capabilities client_heartbeat client_identity daemon_status daemon_update health mcp_guardrail_events non_blocking_prompt
  permission_mediation permission_vote session_approval_mode_control session_archive session_cancel
  session_catalog_batch session_close session_organization session_recap session_btw session_generation session_context session_context_usage session_create session_events
  session_export session_hooks session_info session_list session_load session_lsp session_metadata session_permission_vote
  session_prompt session_resources session_rewind session_branch session_resume session_scope_override session_set_model session_startup_config
  session_stats session_status session_supported_commands session_tasks session_transcript session_worktree_reset_v1 slow_client_warning
  typed_event_schema unstable_session_resume workspace_env workspace_file_bytes workspace_file_read
  workspace_file_write workspace_hooks workspace_init workspace_mcp workspace_mcp_manage workspace_mcp_restart workspace_persisted_transcript
  workspace_preflight workspace_providers workspace_session_export workspace_session_live_state workspace_skill_settings_batch_toggle
  workspace_skill_settings_toggle workspace_skills workspace_tool_toggle workspace_trust session_source_metadata
  web_shell_brand workspace_git workspace_settings workspace_qualified_rest_core workspace_archived_session_export
  dynamic_workspace_registration persistent_workspace_registration
  workspace_display_name workspace_runtime_removal workspace_runtime_stop workspace_memory workspace_agents workspace_agent_generate session_language user_language_sync workspace_extensions mcp_server_runtime_mutation`.split(/\s+/),
);
