"""``envtui serve``: the command (:mod:`.command`), its web server, who it answers, the tab
host process that runs every browser tab's dashboard, and the one source, alert command and
answer relay that all tabs share."""
