"""The API's side of games, for every game alike: a request's command read into the game's
own type, and a table's seats and list entries as the API shows them."""
