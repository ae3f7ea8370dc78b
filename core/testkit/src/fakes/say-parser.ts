import { AgentProtocolError, type AgentStreamParser, emptyUsage, type TrajectoryEvent } from '@longhaul/core';

/**
 * The stream parser of a fake agent CLI, for `runAgentTurn` in tests: each `say TEXT` line it
 * prints is a message; any other line is not its format (a protocol error). It reports no
 * outcome, so a turn ends with how its process ended (killed for memory, crashed...).
 */
export class SayParser implements AgentStreamParser {
  outcome: AgentStreamParser['outcome'];
  finalText = '';
  usage = emptyUsage();

  parse(line: string): TrajectoryEvent[] {
    if (!line.startsWith('say ')) throw new AgentProtocolError(`not a say line: ${line}`);
    this.finalText = line.slice(4);
    return [{ type: 'message', role: 'assistant', text: this.finalText }];
  }
}
