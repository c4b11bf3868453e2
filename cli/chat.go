package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"smriti/client"
	"smriti/wire"
	"strings"

	"github.com/spf13/cobra"

	"smriti"
)

type chatOptions struct {
	session, provider, model, mount string
	mock, asJSON, stream            bool
}

func (o *chatOptions) flags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.session, "session", "", "continue this session (default: a new session in the space)")
	f.StringVar(&o.provider, "provider", "", "provider (default: the server's)")
	f.StringVar(&o.model, "model", "", "model (default: the provider's)")
	f.StringVar(&o.mount, "mount", "", "mount this checkpoint: the model sees it and the turns after the mount")
	f.BoolVar(&o.mock, "mock", false, "answer with the offline mock")
	jsonFlag(cmd, &o.asJSON)
}

// streamFlag adds --stream, which chat alone has.
func (o *chatOptions) streamFlag(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&o.stream, "stream", false,
		"with --json: print one JSON event per line as the reply arrives (meta, delta…, then done or error) instead of one object at the end")
}

// sessionFor returns the session to talk in: --session, or a new one in the
// space (seeded from main's head).
func (o *chatOptions) sessionFor(ctx context.Context, c *client.Client, spaceArg, title string) (smriti.ID, error) {
	if o.session != "" {
		return resolveSession(ctx, c, o.session)
	}
	sp, err := resolveSpace(ctx, c, spaceArg)
	if err != nil {
		return smriti.NilID, err
	}
	id := sp.ID.String()
	s, err := c.CreateSessionWith(ctx, wire.SessionCreateRequest{RepoID: &id, Title: title, Provider: o.provider, Model: o.model})
	if err != nil {
		return smriti.NilID, err
	}
	return s.ID, nil
}

func (o *chatOptions) request(ctx context.Context, c *client.Client, session smriti.ID, msg string) (wire.SendRequest, error) {
	sid := session.String()
	req := wire.SendRequest{SessionID: &sid, Message: &msg, Provider: o.provider, Model: o.model, UseMock: o.mock}
	if o.mount != "" {
		cp, err := resolveCheckpoint(ctx, c, o.mount)
		if err != nil {
			return req, err
		}
		id := cp.ID.String()
		req.MountedCheckpointID = &id
	}
	return req, nil
}

func newChatCmd() *cobra.Command {
	var o chatOptions
	cmd := &cobra.Command{
		Use:   "chat <space> [message…]",
		Short: "Send a message and stream the reply; with no message on a terminal, an interactive loop",
		Long: `Send one message (the arguments, or stdin when it is piped) and stream the
reply to the terminal. With no message and a terminal on stdin, chat
interactively until an empty line or end of input.

--json prints the final answer (reply, session, turn count, usage, context)
as one object once the reply is stored: the shape of POST /api/v4/chat/send,
read in one piece (jq .reply). --json --stream prints it as newline-delimited
JSON events instead, one per line as they arrive:
  {"event":"meta","data":{"session_id":…,"provider":…,"model":…,"context":…}}
  {"event":"delta","data":{"text":"…"}}         (one per piece of the reply)
  {"event":"done","data":{…the --json object…}}
or, when the send fails after it started, {"event":"error","data":{"status":…,"detail":…}}
followed by exit status 1.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr(cmd, "missing argument <space>")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			ctx := cmd.Context()
			c := env.Client()
			msg := strings.Join(args[1:], " ")
			interactive := msg == "" && env.StdinTTY
			if msg == "" && !interactive {
				data, err := readAllLimited(env.Stdin, "stdin")
				if err != nil {
					return err
				}
				msg = strings.TrimSpace(string(data))
				if msg == "" {
					return usageErr(cmd, "no message: pass it as arguments or pipe it on stdin")
				}
			}
			title := "cli chat"
			if msg != "" {
				title = "cli: " + truncateRunes(msg, 80)
			}
			session, err := o.sessionFor(ctx, c, args[0], title)
			if err != nil {
				return err
			}
			if !interactive {
				if err := chatOnce(ctx, env, c, &o, session, msg); err != nil {
					return err
				}
				if !o.asJSON {
					fmt.Fprintf(env.Stderr, "session %s — continue it with --session %s\n", session, shortID(session))
				}
				return nil
			}
			fmt.Fprintf(env.Stderr, "session %s — an empty line ends the chat\n", session)
			in := bufio.NewScanner(env.Stdin)
			in.Buffer(make([]byte, 64*1024), maxStdin)
			for {
				fmt.Fprint(env.Stderr, "> ")
				if !in.Scan() || strings.TrimSpace(in.Text()) == "" {
					return in.Err()
				}
				if err := chatOnce(ctx, env, c, &o, session, in.Text()); err != nil {
					Report(env.Stderr, err)
				}
			}
		},
	}
	o.flags(cmd)
	o.streamFlag(cmd)
	return cmd
}

// chatOnce sends one message, streaming the reply to stdout.
func chatOnce(ctx context.Context, env *Env, c *client.Client, o *chatOptions, session smriti.ID, msg string) error {
	req, err := o.request(ctx, c, session, msg)
	if err != nil {
		return err
	}
	if o.asJSON && o.stream {
		return streamEvents(ctx, env, c, req)
	}
	if o.asJSON {
		stop := spinner(env, "thinking…")
		out, err := c.Send(ctx, req, "")
		stop()
		if err != nil {
			return err
		}
		printRedactions(env, out.Redactions)
		return printJSON(env.Stdout, out)
	}
	stop := spinner(env, "thinking…")
	started := false
	done, err := c.SendStream(ctx, req, func(ev client.StreamEvent) {
		if ev.Event != "delta" {
			return
		}
		var d struct {
			Text string `json:"text"`
		}
		if json.Unmarshal(ev.Data, &d) == nil {
			if !started {
				stop()
				started = true
			}
			fmt.Fprint(env.Stdout, d.Text)
		}
	})
	stop()
	if started {
		fmt.Fprintln(env.Stdout)
	}
	if done != nil {
		printRedactions(env, done.Redactions)
	}
	return err
}

// streamEvents prints a streamed send as newline-delimited JSON: each
// server-sent event becomes {"event": name, "data": payload} on one line,
// written as it arrives. The done event's data is the object --json prints.
func streamEvents(ctx context.Context, env *Env, c *client.Client, req wire.SendRequest) error {
	var werr error
	_, err := c.SendStream(ctx, req, func(ev client.StreamEvent) {
		if werr != nil {
			return
		}
		// Marshal compacts the payload onto one line and rejects one that
		// is not JSON.
		line, err := json.Marshal(struct {
			Event string          `json:"event"`
			Data  json.RawMessage `json:"data"`
		}{ev.Event, ev.Data})
		if err != nil {
			werr = smriti.Errorf(smriti.EUPSTREAM, "the server sent a %s event that is not JSON", ev.Event)
			return
		}
		_, werr = env.Stdout.Write(append(line, '\n'))
	})
	if err != nil {
		return err
	}
	return werr
}

func newContextCmd() *cobra.Command {
	var o chatOptions
	cmd := &cobra.Command{
		Use:   "context <space> <message…>",
		Short: "Print exactly what a send would give the model, without calling it",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 {
				return usageErr(cmd, fmt.Sprintf("missing argument <%s>", []string{"space", "message"}[len(args)]))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			ctx := cmd.Context()
			c := env.Client()
			msg := strings.Join(args[1:], " ")
			var req wire.SendRequest
			if o.session != "" {
				session, err := resolveSession(ctx, c, o.session)
				if err != nil {
					return err
				}
				if req, err = o.request(ctx, c, session, msg); err != nil {
					return err
				}
			} else {
				// Without --session the preview is what a new conversation
				// of the space would start from; no session is made for it.
				sp, err := resolveSpace(ctx, c, args[0])
				if err != nil {
					return err
				}
				if req, err = o.request(ctx, c, smriti.NilID, msg); err != nil {
					return err
				}
				id := sp.ID.String()
				req.SessionID, req.RepoID = nil, &id
			}
			p, err := c.PreviewContext(ctx, req)
			if err != nil {
				return err
			}
			if o.asJSON {
				return printJSON(env.Stdout, p)
			}
			fmt.Fprint(env.Stdout, formatPreview(p))
			return nil
		},
	}
	o.flags(cmd)
	return cmd
}

func formatPreview(p *wire.ContextPreview) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Context: %s mode · %s/%s · ~%d tokens\n\n", p.Mode, p.Provider, p.Model, p.TokenEstimate)
	if len(p.Checkpoints) > 0 {
		b.WriteString("Checkpoints:\n")
		for _, c := range p.Checkpoints {
			fmt.Fprintf(&b, "- `%s` on `%s` — %s\n", short(c.CommitHash), c.BranchName, c.Message)
		}
		b.WriteString("\n")
	} else {
		b.WriteString("Checkpoints: none\n\n")
	}
	fmt.Fprintf(&b, "Turns: %d", p.TurnCount)
	if p.DroppedTurns > 0 {
		fmt.Fprintf(&b, " (%d dropped to fit the budget)", p.DroppedTurns)
	}
	b.WriteString("\n")
	for _, m := range p.Messages {
		fmt.Fprintf(&b, "\n## %s\n%s\n", m.Role, m.Content)
	}
	return b.String()
}

// resolveSession asks the server which session --session names (its id
// or a unique prefix of 4+ characters).
func resolveSession(ctx context.Context, c *client.Client, ref string) (smriti.ID, error) {
	se, err := c.ResolveSession(ctx, ref)
	if err != nil {
		if smriti.ErrorCode(err) == smriti.EINVALID {
			return smriti.NilID, smriti.Errorf(smriti.EINVALID, "--session %s", smriti.ErrorMessage(err))
		}
		return smriti.NilID, err
	}
	return se.ID, nil
}
